"""Retention benchmark (issue 39): the retention job over 1,000,000 bookings and
10,000,000 trail positions on PostgreSQL.

Creates a throwaway database next to DATABASE_URL's, migrates it, loads bookings (Leeds
and London pickups, all past their record-keeping period but one in ten, which is not
yet due) and position samples (all past the trail period) with COPY, then runs the
retention job twice with the clock a year and a half on. Prints the time and peak memory
of each run and the longest transaction it held (the span from a transaction's first
statement to its last: the time its row locks were held), against the goal: never more
than a second at a time. The second run must find nothing to do.

    .venv/bin/python bench/bench_retention.py                                  # full size
    .venv/bin/python bench/bench_retention.py --bookings 100000 --positions 1000000
"""

from __future__ import annotations

import argparse
import os
import resource
import sys
import time
from datetime import UTC, date, datetime, timedelta
from decimal import Decimal
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.common import database_recreate, database_url  # noqa: E402

NOW = datetime(2026, 6, 1, 3, 41, tzinfo=UTC)
PICKUP = datetime(2024, 11, 1, 12, 0, tzinfo=UTC)  # 19 months before NOW
RECENT_PICKUP = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)  # within every period
LEEDS = (53.7950, -1.5475)
LONDON = (51.5308, -0.1238)


class TransactionClock:
    """Times every transaction the job opens (a Django execute wrapper: public API)."""

    def __init__(self, connection) -> None:
        self.connection = connection
        self.started: float | None = None
        self.last_end = 0.0
        self.spans: list[float] = []

    def __call__(self, execute, sql, params, many, context):
        atomic = self.connection.in_atomic_block
        now = time.perf_counter()
        if atomic and self.started is None:
            self.started = now
        elif not atomic and self.started is not None:
            self._close()
        try:
            return execute(sql, params, many, context)
        finally:
            self.last_end = time.perf_counter()

    def _close(self) -> None:
        self.spans.append(self.last_end - self.started)
        self.started = None

    @property
    def longest(self) -> float:
        return max(self.spans, default=0.0)

    @property
    def count(self) -> int:
        return len(self.spans)

    def p99(self) -> float:
        ordered = sorted(self.spans)
        return ordered[int(0.99 * (len(ordered) - 1))] if ordered else 0.0

    def finish(self) -> None:
        if self.started is not None:
            self._close()


def load(args) -> None:
    from bench.bench_billing import copy_rows, model_rows
    from bookings.models import Booking
    from drivers.models import Driver, PositionSample

    driver = Driver.objects.create(
        name="Bench driver",
        phone="+447700900000",
        stage="billed",
        licensing_authority="Leeds City Council",
        licence_number="LCC1",
        licence_expiry=date(2030, 1, 1),
        base_city="Leeds",
        base_lat=LEEDS[0],
        base_lng=LEEDS[1],
    )
    columns, rows = model_rows(
        Booking,
        {
            "reference": "X",
            "source": "website",
            "pickup": "Leeds station",
            "dropoff": "York",
            "pickup_time": PICKUP,
            "fare": Decimal("35.00"),
            "status": "completed",
            "passenger_name": "Bench Passenger",
            "passenger_email": "bench@example.co.uk",
            "passenger_phone": "+447700900123",
            "driver": driver,
        },
        {
            "reference": lambda i: f"BEN-{i:08d}",
            "pickup_lat": lambda i: LONDON[0] if i % 2 else LEEDS[0],
            "pickup_lng": lambda i: LONDON[1] if i % 2 else LEEDS[1],
            "pickup_time": lambda i: RECENT_PICKUP if i % 10 == 0 else PICKUP,
        },
        args.bookings,
    )
    started = time.perf_counter()
    copy_rows(Booking, columns, rows)
    print(
        f"  loaded {args.bookings:,} bookings in {time.perf_counter() - started:.0f} s", flush=True
    )
    first = Booking.objects.order_by("pk").values_list("pk", flat=True).first()
    columns, rows = model_rows(
        PositionSample,
        {"driver": driver, "booking_id": first, "slot": 0, "at": PICKUP, "lat": 53.8, "lng": -1.5},
        {
            "slot": lambda i: i,
            "booking_id": lambda i: first + (i % args.bookings),
            "at": lambda i: PICKUP + timedelta(seconds=i % 86400),
        },
        args.positions,
    )
    started = time.perf_counter()
    copy_rows(PositionSample, columns, rows)
    print(
        f"  loaded {args.positions:,} positions in {time.perf_counter() - started:.0f} s",
        flush=True,
    )
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("ANALYZE")


def run(label: str) -> dict:
    import time_machine
    from django.db import connection

    from privacy.services.retention import retention_apply

    clock = TransactionClock(connection)
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    started = time.perf_counter()
    with time_machine.travel(NOW, tick=True), connection.execute_wrapper(clock):
        report = retention_apply()
    clock.finish()
    elapsed = time.perf_counter() - started
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    row = {
        "label": label,
        "seconds": elapsed,
        "peak_mb": peak_mb,
        "grew_mb": (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) / 1024,
        "longest_s": clock.longest,
        "p99_s": clock.p99(),
        "over_1s": sum(span > 1.0 for span in clock.spans),
        "transactions": clock.count,
        "bookings": report.counts["bookings"],
        "positions": report.counts["position_trails"],
    }
    print(
        f"  {label}: {elapsed:.1f} s, peak RSS {peak_mb:.0f} MB, {clock.count:,} transactions, "
        f"p99 {row['p99_s'] * 1000:.0f} ms, longest {clock.longest * 1000:.0f} ms, "
        f"{row['over_1s']} over 1 s; minimised {row['bookings']:,} bookings, "
        f"deleted {row['positions']:,} positions",
        flush=True,
    )
    return row


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--bookings", type=int, default=1_000_000)
    parser.add_argument("--positions", type=int, default=10_000_000)
    parser.add_argument("--keep", action="store_true", help="keep the database afterwards")
    args = parser.parse_args()
    admin = os.environ.get("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/postgres")
    name = "dtd_bench_retention"
    database_recreate(admin, name)
    os.environ.update(
        DATABASE_URL=database_url(admin, name),
        DJANGO_SETTINGS_MODULE="config.settings.local",
        LOG_LEVEL="WARNING",
    )
    import django

    django.setup()
    from django.conf import settings
    from django.core.management import call_command

    try:
        call_command("migrate", verbosity=0)
        print(
            f"retention job: {args.bookings:,} bookings, {args.positions:,} positions, "
            f"batches of {settings.PRIVACY_RETENTION_BATCH:,}, load average "
            f"{os.getloadavg()[0]:.1f} on {os.cpu_count()} cores",
            flush=True,
        )
        load(args)
        first = run("first run")
        second = run("second run")
        due = args.bookings - args.bookings // 10 - (1 if args.bookings % 10 else 0)
        checks = {
            "every due booking minimised": first["bookings"] >= due,
            "every position deleted": first["positions"] == args.positions,
            "no transaction over 1 s": max(first["longest_s"], second["longest_s"]) < 1.0,
            "second run finds nothing": second["bookings"] == 0 and second["positions"] == 0,
        }
        for check, ok in checks.items():
            print(f"  {'PASS' if ok else 'FAIL'}: {check}")
        return 0 if all(checks.values()) else 1
    finally:
        from django.db import connections

        connections.close_all()
        if not args.keep:
            database_recreate(admin, name, drop_only=True)


if __name__ == "__main__":
    sys.exit(main())
