"""The calibrated basis's error, leave-one-out, on the authorities with complete tables
(issue 33; method: pricing.estimation).

Run: .venv/bin/python bench/bench_calibration.py   (or make bench ARGS="--only calibration")
Loads the registry into a throwaway in-memory database, fits each authority with a
complete table from its 2-mile daytime fare only (the reference built without it), and
prints each comparison at 1, 2, 5 and 10 miles by day (Tuesday 11:00) and by night
(Saturday 23:30), then the median and 90th percentile of the absolute error and the
uprating error measured on the published pairs of tariff_changes.json. Goal: weekday
daytime median <= 8 %, p90 <= 15 % (pricing/tests/test_estimation.py holds it). The
figures a quote carries (estimate.errorPct) are computed the same way at each load.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.test")


def main() -> int:
    import json

    import django

    django.setup()
    from django.core.management import call_command
    from django.db import connection

    connection.settings_dict["NAME"] = ":memory:"
    call_command("migrate", verbosity=0)
    from pricing.estimation import loo_measure, reference_from_database
    from pricing.loaders import DATA_FILE, tariffs_load, uprating_error_measure

    tariffs_load(estimates=False)
    reference = reference_from_database()
    result = loo_measure(reference)
    print(
        f"{'authority':<34} {'table':<26} {'when':<5} {'mi':>3} {'real':>7} {'est.':>7} {'err %':>6}"
    )
    for row in result.rows:
        print(
            f"{row.authority[:34]:<34} {row.reference[:26]:<26} {row.when:<5} {row.miles:>3} "
            f"{row.real:>7.2f} {row.estimate:>7.2f} {row.error_pct:>6.1f}"
        )
    print()
    print(f"authorities with complete tables: {result.authorities}")
    print(
        f"weekday daytime 1-10 mi: median {result.median('day')} %, p90 {result.p90('day')} % (goal 8 / 15)"
    )
    print(
        f"night 1-10 mi:           median {result.median('night')} %, p90 {result.p90('night')} %"
    )
    print(f"day and night:           median {result.median()} %, p90 {result.p90()} %")
    tables = json.loads(DATA_FILE.read_text())["tariffs"]
    print(f"uprating error (p90 over the published pairs): {uprating_error_measure(tables)} %")
    ok = result.median("day") <= 8 and result.p90("day") <= 15
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
