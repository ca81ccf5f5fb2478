"""Partner intake benchmark (issue 6): POST /api/public/v1/jobs with batches of 100 jobs.

Creates a throwaway PostgreSQL database next to DATABASE_URL's (default
postgres://postgres@127.0.0.1:5432/postgres), migrates it, creates a partner, then sends
batches through the whole Django stack in-process (middleware, key authentication, view,
pricing, booking engine, database; no socket). Dispatch and webhooks are handed to the
Celery broker as in production (an in-memory broker here), not run inline. Prints a table.

Targets: a batch of 100 new jobs (with `fare`, so no tariff lookup; geocoding still runs)
in under 500 ms; the same batch repeated (all `unchanged`) in under 100 ms.

    .venv/bin/python bench/bench_intake.py [--runs 10] [--keep]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.common import database_recreate, database_url  # noqa: E402

DB_NAME = "dtd_bench_intake"
PLACES = [
    ("Leeds station", "York"),
    ("Manchester Airport", "Manchester Piccadilly"),
    ("Heathrow Airport", "London King's Cross"),
    ("Harrogate", "Leeds Bradford Airport"),
    ("LHR", "Reading"),
]


def batch(prefix: str, size: int, *, with_fare: bool = True) -> list[dict]:
    pickup_time = (datetime.now(UTC) + timedelta(days=2)).replace(microsecond=0).isoformat()
    jobs = []
    for i in range(size):
        pickup, dropoff = PLACES[i % len(PLACES)]
        job = {
            "jobRef": f"{prefix}-{i:03d}",
            "pickup": pickup,
            "dropoff": dropoff,
            "pickupTime": pickup_time,
            "passengerName": f"Passenger {i}",
            "passengerPhone": f"+4477009{i:05d}",
            "passengerEmail": f"passenger{i}@example.co.uk",
            "passengers": 1 + i % 4,
            "notes": "2 large suitcases",
        }
        if with_fare:
            job["fare"] = 30 + i % 20
        jobs.append(job)
    return jobs


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--size", type=int, default=100)
    parser.add_argument("--keep", action="store_true", help="keep the benchmark database")
    args = parser.parse_args()

    admin_url = os.environ.get("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/postgres")
    database_recreate(admin_url, DB_NAME)
    os.environ.update(
        DATABASE_URL=database_url(admin_url, DB_NAME),
        DJANGO_SETTINGS_MODULE="config.settings.local",
        DJANGO_DEBUG="0",
        RATELIMIT_ENABLE="0",
        CELERY_TASK_ALWAYS_EAGER="0",
        CELERY_BROKER_URL="memory://",
        LOG_LEVEL="WARNING",
    )
    os.environ.pop("REDIS_URL", None)

    import django

    django.setup()
    from django.core.management import call_command
    from django.test import Client

    from bookings.models import Booking
    from partners.services import account_create

    try:
        call_command("migrate", verbosity=0)
        try:
            from pricing.loaders import tariffs_load

            tariffs_load()
        except ImportError:
            pass
        partner, raw_key = account_create(
            kind="partner", name="Bench Partner", daily_job_limit=1_000_000
        )
        client = Client(HTTP_X_API_KEY=raw_key)

        def post(jobs) -> tuple[float, dict]:
            body = json.dumps(jobs)
            start = time.perf_counter()
            response = client.post(
                "/api/public/v1/jobs", data=body, content_type="application/json"
            )
            elapsed = (time.perf_counter() - start) * 1000
            assert response.status_code == 200, response.content[:500]
            return elapsed, response.json()["summary"]

        post(batch("WARM", 10))  # load the geocoder and compile tariffs once

        rows = []

        def measure(label: str, target_ms: float | None, make_jobs, *, repeat: bool = False):
            timings = []
            for run in range(args.runs):
                jobs = make_jobs(run)
                if repeat:
                    post(jobs)
                elapsed, summary = post(jobs)
                assert summary["accepted"] == len(jobs), summary
                timings.append(elapsed)
            median = statistics.median(timings)
            worst = max(timings)
            p95 = sorted(timings)[max(0, int(round(0.95 * len(timings))) - 1)]
            verdict = "" if target_ms is None else ("PASS" if median < target_ms else "FAIL")
            rows.append((label, len(make_jobs(0)), median, p95, worst, target_ms, verdict))

        measure("new jobs, sender fare", 500, lambda run: batch(f"NEW{run}", args.size))
        measure(
            "repeat of applied batch (unchanged)",
            100,
            lambda run: batch(f"REP{run}", args.size),
            repeat=True,
        )
        measure(
            "new jobs, priced on tariffs",
            None,
            lambda run: batch(f"TAR{run}", args.size, with_fare=False),
        )

        print()
        print(f"Partner intake, POST /api/public/v1/jobs, {args.runs} runs each, PostgreSQL")
        header = f"{'case':<38} {'jobs':>5} {'median ms':>10} {'p95 ms':>8} {'max ms':>8} {'target':>8} {'':>5}"
        print(header)
        print("-" * len(header))
        for label, jobs, median, p95, worst, target, verdict in rows:
            target_text = f"<{target:.0f}" if target else "-"
            print(
                f"{label:<38} {jobs:>5} {median:>10.1f} {p95:>8.1f} {worst:>8.1f} "
                f"{target_text:>8} {verdict:>5}"
            )
        print(f"\nbookings created: {Booking.objects.count()}")
        failed = any(row[-1] == "FAIL" for row in rows)
    finally:
        from django.db import connections

        connections.close_all()
        if not args.keep:
            database_recreate(admin_url, DB_NAME, drop_only=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
