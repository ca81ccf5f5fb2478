"""The licensing grid at its edges, not its centres (issue 37): postcodes either side of
district and national borders, west and east of Greenwich, points in empty cells (sea,
moor) and points 100 m inside and outside each airport site.

The points come from the ONS Postcode Directory the grid was built from
(``data/licensing_boundaries.tsv``, picked by ``manage.py
pricing_pick_licensing_boundaries``): each postcode is expected in its own district, so the
test and the grid agree only where the data does. Breaks these catch and the town-centre
tests did not: ``int`` for ``floor`` west of Greenwich, ``bisect_left`` for
``bisect_right``, a search of 1 cell for 4, an airport site's radius left unsquared.
"""

from __future__ import annotations

import dataclasses
import math
from pathlib import Path

import pytest

from pricing import licensing
from pricing.licensing import (
    STEP,
    District,
    authority_districts,
    district_at,
    licensing_authority_at,
    licensing_map,
)

DATA = Path(__file__).resolve().parent / "data" / "licensing_boundaries.tsv"


def _rows() -> list[tuple[str, str, str, float, float]]:
    rows = []
    for line in DATA.read_text(encoding="utf-8").splitlines():
        if line.startswith("#") or not line.strip():
            continue
        kind, postcode, district, lat, lng = line.split("\t")
        rows.append((kind, postcode, district, float(lat), float(lng)))
    return rows


ROWS = _rows()
BORDERS = [row for row in ROWS if not row[0].startswith("empty")]
EMPTY = [row for row in ROWS if row[0].startswith("empty")]


def test_the_points_cover_every_kind_of_edge():
    kinds = {row[0].rsplit(" ", 1)[0] for row in BORDERS}
    assert {"national E|W", "national E|S", "district NI", "district west"} <= kinds
    assert "district east" in kinds  # east of Greenwich too
    assert sum(1 for row in BORDERS if row[4] < 0) >= 20  # the west: int is not floor there
    assert len(EMPTY) >= 6


@pytest.mark.parametrize(
    ("kind", "postcode", "district", "lat", "lng"), BORDERS, ids=[r[1] for r in BORDERS]
)
def test_a_postcode_beside_a_border_is_in_its_own_district(kind, postcode, district, lat, lng):
    found = district_at(lat, lng)
    assert getattr(found, "code", None) == district, (kind, postcode)


def test_the_two_sides_of_each_pair_are_adjacent_cells_of_different_districts():
    """Each pair is one cell apart across the border: a lookup off by one cell in either
    direction (int for floor in the west, bisect_left at a run's first cell) swaps them."""
    for west, east in zip(BORDERS[::2], BORDERS[1::2], strict=True):
        assert (west[0][-4:], east[0][-4:]) == ("west", "east")
        assert west[2] != east[2]
        assert math.floor(east[4] / STEP) - math.floor(west[4] / STEP) == 1


@pytest.mark.parametrize(
    ("kind", "postcode", "district", "lat", "lng"), EMPTY, ids=[f"{r[3]},{r[4]}" for r in EMPTY]
)
def test_a_point_in_an_empty_cell_takes_the_nearest_district(kind, postcode, district, lat, lng):
    """Each point is one where a search that went wrong in one way (one direction only,
    one cell or five, the longitude's weight, a tie going to the later cell, a point west
    of its row's first cell) would answer otherwise; "none": nothing within 4 cells."""
    found = district_at(lat, lng)
    assert getattr(found, "code", "none") == district, kind


def test_the_empty_points_cover_every_way_the_search_can_go_wrong():
    kinds = {row[0].removeprefix("empty: ") for row in EMPTY}
    assert kinds >= {
        "north only", "south only", "east only", "west only", "one cell", "five cells",
        "weight", "tie", "west of its row",
    }  # fmt: skip


def _moved(lat: float, lng: float, north_m: float, east_m: float) -> tuple[float, float]:
    return (
        lat + north_m / 111_195.0,
        lng + east_m / (111_195.0 * math.cos(math.radians(lat))),
    )


SITES = licensing_map().sites


def test_each_airport_site_is_listed():
    assert {site.district for site in SITES} == {"E08000003", "E06000032"}  # Manchester, Luton


@pytest.mark.parametrize("site", SITES, ids=[s.district for s in SITES])
def test_100_m_from_an_airport_site_is_the_sites_district(site):
    for north, east in ((100, 0), (-100, 0), (0, 100), (0, -100)):
        assert district_at(*_moved(site.lat, site.lng, north, east)).code == site.district


@pytest.mark.parametrize("site", SITES, ids=[s.district for s in SITES])
def test_100_m_beyond_an_airport_site_the_grid_decides(site):
    grid_alone = dataclasses.replace(licensing_map(), sites=())
    # the site's reference point lies in another district's cell: that is why it is a site
    assert grid_alone.district_at(site.lat, site.lng).code != site.district
    for north, east in ((1, 0), (-1, 0), (0, 1), (0, -1)):
        reach = site.radius_m + 100
        point = _moved(site.lat, site.lng, north * reach, east * reach)
        assert district_at(*point) == grid_alone.district_at(*point)
        inside = _moved(
            site.lat, site.lng, north * (site.radius_m - 100), east * (site.radius_m - 100)
        )
        assert district_at(*inside).code == site.district


@pytest.mark.parametrize("site", SITES, ids=[s.district for s in SITES])
def test_an_airport_sites_edge_is_its_radius_in_metres_to_the_centimetre(site):
    """The circle is measured in equirectangular metres (111,195 m a degree of latitude,
    times the cosine of the latitude for longitude): 5 mm inside it is the site's."""
    grid_alone = dataclasses.replace(licensing_map(), sites=())
    for north, east in ((1, 0), (0, 1), (-1, 0), (0, -1)):
        inside = site.radius_m - 0.005
        point = _moved(site.lat, site.lng, north * inside, east * inside)
        assert district_at(*point).code == site.district
        outside = site.radius_m + 0.005
        point = _moved(site.lat, site.lng, north * outside, east * outside)
        assert district_at(*point) == grid_alone.district_at(*point)


# --- the files as loaded, and the authority lookups ---------------------------------------


def test_the_files_load_to_the_same_answers_afresh():
    """``licensing_map`` is loaded once per process; this reads the two files again, so a
    break in the loader cannot hide behind a map loaded before it."""
    fresh = licensing._load()
    for kind, postcode, district, lat, lng in ROWS:
        assert getattr(fresh.district_at(lat, lng), "code", "none") == district, (kind, postcode)
    assert fresh.districts["E08000035"] == District("E08000035", "Leeds", "Leeds City Council")
    assert fresh.sites == licensing_map().sites
    assert len(fresh.codes) == len(set(fresh.codes)) >= 360
    assert fresh.codes == licensing_map().codes


def test_the_authority_of_a_border_postcode_is_its_districts():
    # NP16 5JU is Monmouthshire (Wales), NP6 7ER across the border the Forest of Dean
    wales, england = (row for row in BORDERS if row[1] in ("NP16 5JU", "NP6 7ER"))
    assert licensing_authority_at(*wales[3:]) == licensing_map().districts[wales[2]].authority
    assert licensing_authority_at(*england[3:]) == licensing_map().districts[england[2]].authority
    assert licensing_authority_at(*wales[3:]) != licensing_authority_at(*england[3:])
    assert licensing_authority_at(54.0, -4.0) is None  # the Irish Sea: no postcode near


def test_an_authority_lists_its_districts_sorted():
    assert authority_districts("Transport for London") == [f"E090000{i:02d}" for i in range(1, 34)]
    assert authority_districts("Leeds City Council") == ["E08000035"]
    assert authority_districts("Nobody") == []
