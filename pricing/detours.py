"""Known detours of the estimate (issue 22): where the road cannot follow the straight line.

The estimate is the straight line times a road factor fitted to real journeys; that is
right on average and badly short where the road must go round something: an estuary that
roads cross only at a few bridges and tunnels (Humber, Severn, the Thames east of London,
Mersey, Forth, Tay), or the M25 round the south-west of London between Heathrow and
Gatwick. ``pricing/data/uk_road_detours.json`` draws those (its notes say how), and
:func:`detour_path` returns the points a journey goes through: through the crossing that
makes it shortest when its straight line crosses an estuary's water, along the motorway
between the ends of a known "via". The router then measures the straight line leg by leg.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

DATA_FILE = Path(__file__).resolve().parent / "data" / "uk_road_detours.json"

Point = tuple[float, float]  # (lat, lng)
XY = tuple[float, float]  # a point on the flat plane the crossing test works in (_xy)


@dataclass(frozen=True, slots=True)
class Barrier:
    name: str
    line: tuple[Point, ...]  # down the middle of the water, through its crossings
    crossings: tuple[Point, ...]
    # The line's segments on the plane, and the box round them (min x, min y, max x, max
    # y): worked out once as the file is read, not for every journey (issue 41).
    segments: tuple[tuple[XY, XY], ...]
    box: tuple[float, float, float, float]


@dataclass(frozen=True, slots=True)
class Via:
    name: str
    ends: tuple[tuple[Point, float], tuple[Point, float]]  # (centre, radius km) of each end
    points: tuple[Point, ...]  # from the first end towards the second


@lru_cache(maxsize=1)
def detours_load(path: Path = DATA_FILE) -> tuple[tuple[Barrier, ...], tuple[Via, ...]]:
    with open(path, encoding="utf8") as f:
        data = json.load(f)
    barriers = tuple(
        _barrier(
            row["name"],
            tuple((p["lat"], p["lng"]) for p in row["line"]),
            tuple((p["lat"], p["lng"]) for p in row["line"] if "crossing" in p),
        )
        for row in data["barriers"]
    )
    vias = tuple(
        Via(
            row["name"],
            tuple(((end["lat"], end["lng"]), float(end["km"])) for end in row["ends"]),
            tuple((p["lat"], p["lng"]) for p in row["points"]),
        )
        for row in data["vias"]
    )
    return barriers, vias


def _barrier(name: str, line: tuple[Point, ...], crossings: tuple[Point, ...]) -> Barrier:
    plane = [_xy(point) for point in line]
    xs, ys = [x for x, _ in plane], [y for _, y in plane]
    return Barrier(
        name,
        line,
        crossings,
        segments=tuple(zip(plane, plane[1:], strict=False)),
        box=(min(xs), min(ys), max(xs), max(ys)),
    )


def _km(a: Point, b: Point) -> float:
    # Equirectangular: within a few tenths of a percent of the great circle at UK scales.
    scale = math.cos(math.radians((a[0] + b[0]) / 2))
    return math.hypot(a[0] - b[0], (a[1] - b[1]) * scale) * 111.195


def _xy(point: Point) -> XY:
    return point[1] * math.cos(math.radians(54.0)), point[0]


def _cross(o, a, b) -> float:
    return (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0])


def _segments_cross(a: XY, b: XY, c: XY, d: XY) -> bool:
    """Whether the two segments cross strictly (touching at an end is no crossing, so a
    leg that ends at a crossing point does not cross its barrier again)."""
    d1, d2 = _cross(c, d, a), _cross(c, d, b)
    d3, d4 = _cross(a, b, c), _cross(a, b, d)
    return d1 * d2 < 0 and d3 * d4 < 0


def _crosses(barrier: Barrier, start: Point, end: Point) -> bool:
    a, b = _xy(start), _xy(end)
    min_x, min_y, max_x, max_y = barrier.box
    # A leg wholly to one side of the box round the barrier cannot cross it: most
    # journeys are nowhere near any estuary.
    if max(a[0], b[0]) < min_x or min(a[0], b[0]) > max_x:
        return False
    if max(a[1], b[1]) < min_y or min(a[1], b[1]) > max_y:
        return False
    return any(_segments_cross(a, b, c, d) for c, d in barrier.segments)


def _via_path(via: Via, a: Point, b: Point) -> list[Point] | None:
    (first, first_km), (second, second_km) = via.ends
    if _km(a, first) <= first_km and _km(b, second) <= second_km:
        return [a, *via.points, b]
    if _km(a, second) <= second_km and _km(b, first) <= first_km:
        return [a, *reversed(via.points), b]
    return None


def detour_path(a: Point, b: Point) -> list[Point]:
    """The points a road journey from ``a`` to ``b`` goes through: ``[a, b]`` unless a
    known detour applies. Each estuary is crossed once, at the crossing that makes the
    journey shortest."""
    barriers, vias = detours_load()
    for via in vias:
        path = _via_path(via, a, b)
        if path is not None:
            return path
    path = [a, b]
    for barrier in barriers:
        for i in range(len(path) - 1):
            start, end = path[i], path[i + 1]
            if _crosses(barrier, start, end):
                best = min(barrier.crossings, key=lambda c: _km(start, c) + _km(c, end))
                path.insert(i + 1, best)
                break
    return path
