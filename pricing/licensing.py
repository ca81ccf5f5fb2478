"""Which licensing authority a pickup is in (issue 21: from the authority's own area, not
circles around geocoded towns).

Two data files, both from the Office for National Statistics (Open Government Licence):

- ``pricing/data/uk_licensing_grid.tsv``: the local authority district (GSS code) of every
  cell of a 0.005-degree grid (about 550 m by 320 m), from the districts of the postcodes
  in the cell (ONS Postcode Directory; built by ``manage.py pricing_build_licensing_grid``,
  which prints the share of postcodes the grid puts in their own district);
- ``pricing/data/uk_licensing_authorities.json``: each district's name and the licensing
  authority for taxis there (the district council; Transport for London for London's 33
  districts; the Department for Infrastructure for Northern Ireland).

:func:`licensing_authority_at` is the one lookup: pricing (which council's table prices a
pickup, and whose table is missing when the network's rate prices it) and anything else
that needs a pickup's authority call it. A point with no postcode within about 2 km (out
at sea, abroad) has no authority.
"""

from __future__ import annotations

import bisect
import json
import math
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

DATA_DIR = Path(__file__).resolve().parent / "data"
GRID_FILE = DATA_DIR / "uk_licensing_grid.tsv"
AUTHORITIES_FILE = DATA_DIR / "uk_licensing_authorities.json"
STEP = 0.005
SEARCH_CELLS = 4  # how far (cells) an empty cell looks for the nearest district
GAP = -1


@dataclass(frozen=True, slots=True)
class District:
    code: str  # GSS, e.g. E08000035
    name: str  # ONS name, e.g. Leeds
    authority: str  # the licensing authority, e.g. Leeds City Council


@dataclass(frozen=True, slots=True)
class Site:
    """A place whose pickups belong to another district than its grid cell says (an
    airport whose reference point lies across a boundary from its terminals)."""

    lat: float
    lng: float
    radius_m: float
    district: str


@dataclass(frozen=True, slots=True)
class LicensingMap:
    codes: tuple[str, ...]
    rows: dict[int, tuple[list[int], list[int]]]  # lat cell -> (run starts, code index)
    districts: dict[str, District]
    sites: tuple[Site, ...] = ()

    def _cell(self, lat_i: int, lng_i: int) -> int:
        row = self.rows.get(lat_i)
        if row is None:
            return GAP
        starts, codes = row
        position = bisect.bisect_right(starts, lng_i) - 1
        return GAP if position < 0 else codes[position]

    def district_at(self, lat: float, lng: float) -> District | None:
        for site in self.sites:
            # equirectangular metres: exact enough within a couple of kilometres
            d_lat = (lat - site.lat) * 111_195.0
            d_lng = (lng - site.lng) * 111_195.0 * math.cos(math.radians(site.lat))
            if d_lat * d_lat + d_lng * d_lng <= site.radius_m * site.radius_m:
                return self.districts.get(site.district)
        lat_i, lng_i = math.floor(lat / STEP), math.floor(lng / STEP)
        found = self._cell(lat_i, lng_i)
        if found == GAP:
            best = None
            for d_lat in range(-SEARCH_CELLS, SEARCH_CELLS + 1):
                for d_lng in range(-SEARCH_CELLS, SEARCH_CELLS + 1):
                    code = self._cell(lat_i + d_lat, lng_i + d_lng)
                    # a degree of longitude is about 0.6 of one of latitude in the UK
                    distance = d_lat * d_lat + (0.6 * d_lng) ** 2
                    if code != GAP and (best is None or distance < best[0]):
                        best = (distance, code)
            if best is None:
                return None
            found = best[1]
        return self.districts.get(self.codes[found])


def _load() -> LicensingMap:
    codes: tuple[str, ...] = ()
    rows: dict[int, tuple[list[int], list[int]]] = {}
    with open(GRID_FILE, encoding="utf-8") as f:
        for line in f:
            if line.startswith("#"):
                continue
            key, _, rest = line.rstrip("\n").partition("\t")
            if key == "codes":
                codes = tuple(rest.split())
            elif key != "step":
                starts, indexes = [], []
                for run in rest.split():
                    start, code = run.split(":")
                    starts.append(int(start))
                    indexes.append(int(code))
                rows[int(key)] = (starts, indexes)
    with open(AUTHORITIES_FILE, encoding="utf-8") as f:
        data = json.load(f)
    table = data["districts"]
    sites = tuple(
        Site(s["lat"], s["lng"], float(s["radius_m"]), s["district"]) for s in data.get("sites", [])
    )
    districts = {
        code: District(code=code, name=name, authority=authority)
        for code, (name, authority) in table.items()
    }
    return LicensingMap(codes=codes, rows=rows, districts=districts, sites=sites)


@lru_cache(maxsize=1)
def licensing_map() -> LicensingMap:
    """The grid and the authorities, loaded once per process."""
    return _load()


def district_at(lat: float, lng: float) -> District | None:
    """The local authority district holding the point, or None (sea, abroad)."""
    return licensing_map().district_at(lat, lng)


def licensing_authority_at(lat: float, lng: float) -> str | None:
    """The taxi licensing authority whose area holds the point, or None."""
    district = licensing_map().district_at(lat, lng)
    return district.authority if district else None


def authority_districts(authority: str) -> list[str]:
    """The GSS codes of the districts ``authority`` licenses (e.g. TfL's 33)."""
    return sorted(d.code for d in licensing_map().districts.values() if d.authority == authority)
