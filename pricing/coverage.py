"""Coverage as a figure (issue 33): on what basis the UK's pickups are priced.

Two measures, both printed by ``manage.py tariffs_coverage`` and shown in the README:

- the share of UK postcodes on each basis: every postcode sector of
  ``pricing/data/uk_postcodes.tsv`` (OS Code-Point Open; Northern Ireland from the FSA's
  food-business postcodes) weighted by its count of live postcodes, placed in its
  licensing district by the ONS grid (:mod:`pricing.licensing`);
- the basis of each of the 30 largest markets (``pricing/data/largest_markets.json``).

The basis of a district is that of the table :func:`pricing.selectors.councils_for` would
price a weekday daytime journey of two miles with, today (the network's rate when none).

The largest markets are the licensing authorities with the most live postcodes in the
same file: postcodes count addresses, the demand a taxi market serves, and they come with
the project under an open licence, so the ranking is reproducible
(``manage.py tariffs_coverage --write-markets`` rebuilds the file).
"""

from __future__ import annotations

import datetime as dt
import json
from collections import Counter, defaultdict
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path

from django.utils import timezone

from core.localtime import local_zone
from pricing.catalogue import tariff_catalogue_get
from pricing.licensing import District, district_at, licensing_map
from pricing.models import TariffBasis
from pricing.postcodes import DATA_FILE as POSTCODES_FILE
from pricing.selectors import councils_for

MARKETS_FILE = Path(__file__).resolve().parent / "data" / "largest_markets.json"
MARKET_COUNT = 30
PROBE_DISTANCE_M = Decimal("3218.688")  # two miles: the national table's yardstick
PROBE_HOUR = 11  # a weekday daytime pickup


def postcode_sectors() -> list[tuple[float, float, int]]:
    """(lat, lng, live postcodes) of every postcode sector (districts are skipped: their
    postcodes are their sectors')."""
    sectors = []
    with open(POSTCODES_FILE, encoding="utf-8") as f:
        for line in f:
            if line.startswith("#"):
                continue
            code, lat, lng, count, *_ = line.rstrip("\n").split("\t")
            if " " in code:
                sectors.append((float(lat), float(lng), int(count)))
    return sectors


def _sector_districts() -> list[tuple[District | None, int]]:
    return [(district_at(lat, lng), count) for lat, lng, count in postcode_sectors()]


def markets_rank(limit: int = MARKET_COUNT) -> list[dict]:
    """The ``limit`` licensing authorities with the most live postcodes, largest first."""
    postcodes: Counter[str] = Counter()
    codes: dict[str, set[str]] = defaultdict(set)
    for district, count in _sector_districts():
        if district is None:
            continue
        postcodes[district.authority] += count
        codes[district.authority].add(district.code)
    return [
        {"authority": authority, "areas_gss": sorted(codes[authority]), "postcodes": count}
        for authority, count in postcodes.most_common(limit)
    ]


def markets_write(path: Path = MARKETS_FILE) -> list[dict]:
    markets = markets_rank()
    about = (
        f"The {MARKET_COUNT} largest taxi markets of the UK: the licensing authorities with "
        "the most live postcodes (sum over postcode sectors placed in their licensing "
        "district by the ONS grid). Source: pricing/data/uk_postcodes.tsv (OS Code-Point "
        "Open 2025.4.0, OGL v3; Northern Ireland from the FSA's food-business postcodes) "
        "and pricing/data/uk_licensing_grid.tsv (ONS Postcode Directory, OGL v3). Built by "
        "manage.py tariffs_coverage --write-markets (pricing.coverage)."
    )
    data = {"about": about, "built": timezone.localdate().isoformat(), "markets": markets}
    path.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return markets


def markets_load(path: Path = MARKETS_FILE) -> list[dict]:
    with open(path, encoding="utf-8") as f:
        return json.load(f)["markets"]


def _probe_time(day: dt.date | None = None) -> dt.datetime:
    """A weekday at PROBE_HOUR (Europe/London), today or the next weekday."""
    day = day or timezone.localdate()
    while day.weekday() >= 5:
        day += dt.timedelta(days=1)
    return dt.datetime(day.year, day.month, day.day, PROBE_HOUR, tzinfo=local_zone())


def district_basis(district: District | None, at: dt.datetime) -> str:
    """The basis a weekday daytime two-mile pickup in ``district`` is priced on at ``at``."""
    catalogue = tariff_catalogue_get()
    for tariff in councils_for(catalogue, district):
        if tariff.in_force_on(at.date()) and tariff.can_price(at, PROBE_DISTANCE_M):
            return tariff.basis
    return TariffBasis.NETWORK


@dataclass(frozen=True)
class Coverage:
    postcodes: dict[str, float]  # basis -> share of UK postcodes, percent
    markets: list[tuple[str, str]]  # (authority, basis), largest first

    @property
    def own_basis_pct(self) -> float:
        return sum(v for k, v in self.postcodes.items() if k != TariffBasis.NETWORK)

    def markets_on(self, *bases: str) -> int:
        return sum(1 for _, basis in self.markets if basis in bases)


def coverage_measure(at: dt.datetime | None = None) -> Coverage:
    at = at or _probe_time()
    totals: Counter[str] = Counter()
    cache: dict[str | None, str] = {}
    for district, count in _sector_districts():
        key = district.code if district else None
        if key not in cache:
            cache[key] = district_basis(district, at)
        totals[cache[key]] += count
    whole = sum(totals.values()) or 1
    shares = {basis: round(100 * totals[basis] / whole, 1) for basis in TariffBasis.values}
    markets = []
    for market in markets_load():
        bases = [district_basis(district_for(code), at) for code in market["areas_gss"]] or [
            TariffBasis.NETWORK
        ]
        # A market is on the worst basis any of its districts is priced on.
        worst = max(bases, key=TariffBasis.values.index)
        markets.append((market["authority"], worst))
    return Coverage(postcodes=shares, markets=markets)


def district_for(code: str) -> District | None:
    return licensing_map().districts.get(code)
