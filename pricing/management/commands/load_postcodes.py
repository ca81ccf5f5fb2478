"""Load full UK postcodes, each to its own centroid (contract 2.1.1; issue 22).

    manage.py load_postcodes FILE [--out PATH]

``FILE`` is what an operator downloads: the ONS Postcode Directory (ONSPD, the whole UK,
https://geoportal.statistics.gov.uk, search "ONSPD"), its zip or its CSV; or OS
Code-Point Open (Great Britain, https://osdatahub.os.uk/downloads/open/CodePointOpen), its
zip or unpacked folder. Both are Open Government Licence. Live postcodes with a position
are written to ``PRICING_POSTCODE_UNITS_FILE`` (a read-only SQLite file, replaced whole
once complete); every process then resolves a full postcode to its own centroid instead
of its sector's. Rerun it when a new edition comes out (ONSPD: quarterly).
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from pricing.postcodes import postcode_units_write, units_read


class Command(BaseCommand):
    help = (
        "Load the ONS Postcode Directory or OS Code-Point Open: full postcodes to their centroids."
    )

    def add_arguments(self, parser):
        parser.add_argument("file", help="ONSPD CSV/zip or Code-Point Open zip/folder")
        parser.add_argument(
            "--out", default=settings.PRICING_POSTCODE_UNITS_FILE, help="SQLite file to write"
        )

    def handle(self, *args, file, out, **options):
        source = Path(file)
        if not source.exists():
            raise CommandError(f"No such file or folder: {source}")
        if not out:
            raise CommandError("Set PRICING_POSTCODE_UNITS_FILE (or --out) to where to write.")
        provenance = f"{source.name}, loaded {dt.datetime.now(dt.UTC):%Y-%m-%dT%H:%MZ}"
        try:
            count = postcode_units_write(Path(out), units_read(source), provenance)
        except (ValueError, StopIteration, UnicodeDecodeError) as exc:
            raise CommandError(f"{source} is not an ONSPD or Code-Point Open file: {exc}") from exc
        if count == 0:
            raise CommandError(f"No live postcode with a position in {source}.")
        self.stdout.write(f"Loaded {count} postcodes from {source} into {out}")
