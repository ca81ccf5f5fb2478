"""Regenerate pricing/data/uk_postcodes.tsv: every UK postcode district and sector with
its centroid (contract 2.1.1; issue 22).

    manage.py pricing_build_postcodes CODEPOINT [CODEPOINT ...] [--ni NI_CSV] \
        --source "OS Code-Point Open 2025.4.0 (...), read 2026-11-25" --source "..."

``CODEPOINT`` is OS Code-Point Open (its zip or unpacked folder) or the ONS Postcode
Directory; ``--ni`` adds Northern Ireland from a ``postcode,lat,lon`` CSV (Code-Point
Open covers Great Britain only). Each district is named after the nearest town of 1,000
people or more in pricing/data/places.tsv, for the label a passenger sees.
"""

from __future__ import annotations

import math
from pathlib import Path

from django.core.management.base import BaseCommand

from pricing.gazetteer import DATA_DIR, UK
from pricing.postcodes import DATA_FILE, centroids_aggregate, postcode_parse, units_read

TOWN_MIN_PEOPLE = 1000


class Command(BaseCommand):
    help = "Build pricing/data/uk_postcodes.tsv (districts and sectors) from open postcode data."

    def add_arguments(self, parser):
        parser.add_argument("paths", nargs="+", help="Code-Point Open zip/folder or ONSPD CSV/zip")
        parser.add_argument("--ni", help="Northern Ireland postcode,lat,lon CSV")
        parser.add_argument(
            "--source", action="append", default=[], help="A source line for the file's header"
        )
        parser.add_argument("--out", default=str(DATA_FILE))

    def handle(self, *args, paths, ni, source, out, **options):
        units: dict[str, tuple[float, float]] = {}
        for path in paths:
            for code, lat, lng in units_read(Path(path)):
                units.setdefault(code, (lat, lng))
        great_britain = len(units)
        if ni:
            for code, lat, lng in units_read(Path(ni)):
                # One row per food business: the first position of each postcode, in NI only.
                if code.startswith("BT") and 53.9 < lat < 55.4 and -8.3 < lng < -5.3:
                    units.setdefault(code, (lat, lng))
        areas = centroids_aggregate((code, lat, lng) for code, (lat, lng) in units.items())
        towns = _towns()
        rows = []
        for code in sorted(areas, key=_order):
            lat, lng, count = areas[code]
            town = "" if " " in code else _nearest(towns, lat, lng)
            rows.append(f"{code}\t{lat:.5f}\t{lng:.5f}\t{count}\t{town}")
        districts = sum(1 for code in areas if " " not in code)
        header = [
            "# UK postcode districts and sectors: the mean position of their live postcodes",
            "# (pricing/postcodes.py; built by manage.py pricing_build_postcodes).",
            *(f"# Source: {line}" for line in source),
            f"# {great_britain} GB postcodes, {len(units) - great_britain} NI postcodes; "
            f"{districts} districts, {len(areas) - districts} sectors.",
            "# Licence: Open Government Licence v3.0. Contains OS data (c) Crown copyright and "
            "database right 2025; Contains Royal Mail data (c) Royal Mail copyright and "
            "database right 2025; Contains National Statistics data (c) Crown copyright and "
            "database right 2025.",
            "# town: the nearest place of 1,000+ people (pricing/data/places.tsv), districts only.",
            "# code\tlat\tlng\tpostcodes\ttown",
        ]
        Path(out).write_text("\n".join(header + rows) + "\n", encoding="utf-8")
        self.stdout.write(f"Wrote {len(rows)} districts and sectors to {out}")


def _order(code: str) -> tuple:
    parsed = postcode_parse(code.split(" ")[0])
    area = "".join(c for c in parsed.outward if c.isalpha())[:2]
    return (area, code)


def _towns() -> list[tuple[float, float, float, str]]:
    towns = []
    with open(DATA_DIR / "places.tsv", encoding="utf-8") as f:
        for line in f:
            if line.startswith("#"):
                continue
            name, _alt, lat, lng, country, population, _admin = line.rstrip("\n").split("\t")
            if country == UK and int(population or 0) >= TOWN_MIN_PEOPLE:
                towns.append((float(lat), float(lng), math.cos(math.radians(float(lat))), name))
    return towns


def _nearest(towns, lat: float, lng: float) -> str:
    scale = math.cos(math.radians(lat))
    best = min(towns, key=lambda t: (t[0] - lat) ** 2 + ((t[1] - lng) * scale) ** 2)
    return best[3]
