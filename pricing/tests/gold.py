"""The geocoder's gold set (pricing/tests/data/uk_places_gold.tsv) and how it is scored.

Shared by the test that holds the geocoder to it and by ``bench/bench_pricing.py``.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from pricing.routing import great_circle_m

GOLD_FILE = Path(__file__).resolve().parent / "data" / "uk_places_gold.tsv"
HIT_KM = 2.0


@dataclass(frozen=True)
class GoldPlace:
    name: str
    kind: str
    lat: float
    lng: float
    note: str


@dataclass(frozen=True)
class GoldMiss:
    gold: GoldPlace
    found: str  # what the geocoder said, or "nothing"
    km: float | None


def gold_places(*paths: Path) -> list[GoldPlace]:
    """The rows of gold files (``name, kind, lat, lng, note``); the issue 15 set by default."""
    rows = []
    for path in paths or (GOLD_FILE,):
        for line in path.read_text(encoding="utf8").splitlines():
            if not line.strip() or line.startswith("#"):
                continue
            name, kind, lat, lng, *note = line.split("\t")
            rows.append(GoldPlace(name, kind, float(lat), float(lng), note[0] if note else ""))
    return rows


def gold_misses(
    geocoder, places: list[GoldPlace] | None = None, *, hit_km: float = HIT_KM
) -> list[GoldMiss]:
    """The gold places the geocoder puts further than ``hit_km`` from where they are."""
    misses = []
    for gold in places or gold_places():
        place = geocoder.geocode(gold.name)
        if place is None:
            misses.append(GoldMiss(gold, "nothing", None))
            continue
        km = great_circle_m(gold.lat, gold.lng, place.lat, place.lng) / 1000
        if km > hit_km:
            misses.append(GoldMiss(gold, f"{place.label} ({place.kind})", round(km, 1)))
    return misses


# --- issue 22: postcodes and the names people use -----------------------------------------

POSTCODES_GOLD = GOLD_FILE.with_name("uk_postcodes_gold.tsv")
NAMES_GOLD = GOLD_FILE.with_name("uk_names_gold.tsv")
TYPED_HIT_KM = 3.0  # a sector is a few km across outside towns (issue 22)
TYPED_HIT_RATE = 0.98


def typed_gold() -> list[GoldPlace]:
    """The postcodes and the station, terminal and everyday names (issue 22)."""
    return gold_places(POSTCODES_GOLD, NAMES_GOLD)


def typed_misses(geocoder, places: list[GoldPlace]) -> list[GoldMiss]:
    """The typed gold places the geocoder puts further than TYPED_HIT_KM away."""
    return gold_misses(geocoder, places, hit_km=TYPED_HIT_KM)
