"""Re-dispatch benchmark (issue 34): what one pass of the schedule costs with 1,000 open
bookings without a driver (``dispatch.services.redispatch.bookings_redispatch``, the beat
entry ``dispatch-redispatch``, every DISPATCH_REDISPATCH_EVERY_SECONDS).

Creates a throwaway PostgreSQL database (``dtd_bench_redispatch``), loads 10,000 online
drivers across Great Britain (bench_dispatch's cities), every one busy (holding an
accepted job on board now, at their limit of one), and 1,000 ``no_driver`` network bookings whose window is open, at pickups in the
same cities. Then measures:

- a pass where nobody is free (the steady state while a city is short of drivers): wall
  time, SQL statements and rows written (none: a round that finds nobody writes nothing);
- a pass after 2 % of the drivers free up: wall time, bookings offered.

Prints one table, with the share of one core the schedule costs at its interval.
Target: a pass with nobody free under 10 % of the interval on one core.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres \\
        .venv/bin/python bench/bench_redispatch.py [--bookings 1000] [--drivers 10000]
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import time
from datetime import timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/postgres")
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.test")

import django  # noqa: E402

django.setup()

from django.conf import settings  # noqa: E402
from django.db import connection  # noqa: E402
from django.test.utils import CaptureQueriesContext  # noqa: E402
from django.utils import timezone  # noqa: E402

from bench.bench_dispatch import CITIES, load_drivers  # noqa: E402
from bench.common import jitter, positions_index_load  # noqa: E402


def load_bookings(count: int, rng: random.Random) -> None:
    from bookings.models import Booking, BookingStatus
    from bookings.references import reference_generate

    now = timezone.now()
    rows = []
    for i in range(count):
        _, lat, lng, _ = rng.choices(CITIES, weights=[c[3] for c in CITIES])[0]
        plat, plng = jitter(lat, lng, 5, rng)
        rows.append(
            Booking(
                reference=reference_generate(),
                source="api",
                passenger_name=f"Passenger {i}",
                passenger_email=f"p{i}@example.co.uk",
                passenger_phone="+447700900123",
                pickup="Pickup",
                dropoff="Dropoff",
                pickup_lat=plat,
                pickup_lng=plng,
                dropoff_lat=plat + 0.05,
                dropoff_lng=plng,
                pickup_time=now + timedelta(minutes=rng.randint(0, 60)),
                dispatch_opens_at=now - timedelta(minutes=5),
                dispatch_started_at=now - timedelta(minutes=5),
                passengers=1,
                vehicle_type="saloon",
                fare="20.00",
                status=BookingStatus.NO_DRIVER,
            )
        )
    Booking.objects.bulk_create(rows, batch_size=1000)
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE bookings_booking;")


def hold_jobs(now) -> None:
    """Every driver holds one accepted job busy now (capacity in time): busy."""
    from bookings.models import Booking, BookingStatus
    from bookings.references import reference_generate
    from dispatch.models import Offer, OfferStatus, Tier
    from dispatch.services.matching import job_busy_window
    from drivers.models import Driver

    drivers = list(Driver.objects.values_list("pk", "last_lat", "last_lng"))
    busy_from, busy_until = job_busy_window(now - timedelta(minutes=10), 40)
    for start in range(0, len(drivers), 2000):
        chunk = drivers[start : start + 2000]
        held = Booking.objects.bulk_create(
            [
                Booking(
                    reference=reference_generate(),
                    source="api",
                    pickup="Held",
                    dropoff="Held",
                    pickup_lat=lat,
                    pickup_lng=lng,
                    pickup_time=busy_from,
                    duration_minutes=40,
                    passengers=1,
                    vehicle_type="saloon",
                    fare="20.00",
                    status=BookingStatus.ON_BOARD,
                    driver_id=pk,
                )
                for pk, lat, lng in chunk
            ]
        )
        Offer.objects.bulk_create(
            [
                Offer(
                    booking=booking,
                    tier=Tier.MANUAL,
                    driver_id=booking.driver_id,
                    status=OfferStatus.ACCEPTED,
                    expires_at=busy_from,
                    busy_from=busy_from,
                    busy_until=busy_until,
                )
                for booking in held
            ]
        )
    Driver.objects.update(current_jobs=1)


def timed_pass(now) -> tuple[float, int, object]:
    from dispatch.services.redispatch import bookings_redispatch

    with CaptureQueriesContext(connection) as queries:
        started = time.perf_counter()
        result = bookings_redispatch(now=now)
        elapsed = time.perf_counter() - started
    return elapsed, len(queries.captured_queries), result


def written() -> int:
    from dispatch.models import DispatchAttempt, Offer

    return DispatchAttempt.objects.count() + Offer.objects.count()  # held jobs are constant


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--drivers", type=int, default=10_000)
    parser.add_argument("--bookings", type=int, default=1_000)
    parser.add_argument("--passes", type=int, default=5)
    parser.add_argument("--freed", type=float, default=0.02, help="share of drivers freed")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument(
        "--budget", type=float, default=1e9, help="a pass's search budget (s); default: none"
    )
    args = parser.parse_args()
    if connection.vendor != "postgresql":
        print("bench_redispatch needs PostgreSQL (DATABASE_URL=postgres://...)", file=sys.stderr)
        return 2
    settings.CELERY_TASK_ALWAYS_EAGER = False  # job cards are not sent: dispatch's own cost
    settings.DISPATCH_REDISPATCH_BATCH = max(args.bookings, settings.DISPATCH_REDISPATCH_BATCH)
    settings.DISPATCH_REDISPATCH_BUDGET_SECONDS = args.budget
    connection.settings_dict["TEST"]["NAME"] = "dtd_bench_redispatch"
    old_name = connection.creation.create_test_db(verbosity=0, autoclobber=True, serialize=False)
    try:
        from drivers.models import Driver

        rng = random.Random(args.seed)
        load_drivers(args.drivers, rng)
        now = timezone.now()
        hold_jobs(now)  # everyone busy now (max_jobs is 1)
        positions_index_load(now)
        load_bookings(args.bookings, rng)
        timed_pass(now)  # warm caches and plans
        before = written()
        idle = [timed_pass(now) for _ in range(args.passes)]
        idle_rows = written() - before
        idle_s = [t for t, _, _ in idle]
        idle_queries = idle[0][1]
        freed_ids = list(
            Driver.objects.order_by("?").values_list("pk", flat=True)[
                : int(args.drivers * args.freed)
            ]
        )
        from dispatch.models import Offer

        Offer.objects.filter(driver_id__in=freed_ids, status="accepted").update(released_at=now)
        Driver.objects.filter(pk__in=freed_ids).update(current_jobs=0)
        busy_s, busy_queries, busy = timed_pass(now)
    finally:
        connection.creation.destroy_test_db(old_name, verbosity=0)

    every = float(settings.DISPATCH_REDISPATCH_EVERY_SECONDS)
    median = statistics.median(idle_s)
    rows = [
        ("open no_driver bookings", f"{args.bookings:,}"),
        ("online drivers (all busy)", f"{args.drivers:,}"),
        (
            "pass, nobody free: median / worst",
            f"{median * 1000:.0f} ms / {max(idle_s) * 1000:.0f} ms",
        ),
        ("  per booking", f"{median / args.bookings * 1000:.2f} ms"),
        ("  SQL statements", f"{idle_queries:,} ({idle_queries / args.bookings:.1f} per booking)"),
        ("  rows written", f"{idle_rows}"),
        (f"  one core's share at every {every:.0f} s", f"{median / every * 100:.1f} %"),
        (
            f"pass after {len(freed_ids)} drivers free up",
            f"{busy_s * 1000:.0f} ms, {busy_queries:,} statements",
        ),
        ("  bookings offered", f"{busy.offered} (still waiting {busy.waiting})"),
    ]
    width = max(len(r[0]) for r in rows)
    for label, value in rows:
        print(f"{label:<{width}}  {value}")
    verdict = "PASS" if median < every * 0.10 else "FAIL"
    print(f"target: a pass with nobody free < 10 % of the interval on one core: {verdict}")
    return 0 if verdict == "PASS" else 1


if __name__ == "__main__":
    sys.exit(main())
