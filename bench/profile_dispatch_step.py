"""Where one dispatch step's CPU goes, in one process (issue 41).

Loads the burst bench's drivers (``bench_dispatch_burst``: 1,000 online drivers over 10
towns, in the Redis position index) into a throwaway PostgreSQL database, then runs
``dispatch.services.offers.booking_dispatch_next`` in this process: ``--offered`` steps
that find a driver, then (after every driver holds an open offer, as in the bench once
nobody answers) ``--no-driver`` steps that search every tier. For each kind it prints the
CPU per step and, with ``--no-profile``, the statements per step (captured); otherwise a
cProfile on CPU time (``time.process_time``), cumulative, top ``--top`` rows. Production settings, console job
cards; the Celery publishes after commit go to ``--redis`` (flushed: use a db of your own).

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres \\
        .venv/bin/python bench/profile_dispatch_step.py [--offered 50] [--no-driver 20] \\
        [--redis redis://127.0.0.1:6379/6] [--top 40]
"""

from __future__ import annotations

import argparse
import contextlib
import cProfile
import os
import pstats
import random
import re
import sys
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.bench_dispatch_burst import (  # noqa: E402
    booking_build,
    load_drivers,
    settings_environment,
)
from bench.common import positions_index_load  # noqa: E402

TEST_DB_NAME = os.environ.get("BENCH_DATABASE_NAME", "dtd_profile_dispatch_step")


def steps(booking_ids: list[int], *, profile: bool, top: int, label: str) -> None:
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from bookings.models import Booking
    from dispatch.services.offers import booking_dispatch_next

    # Statements are captured only on unprofiled runs: capturing formats every statement
    # (Django's debug cursor), which would show in the profile.
    profiler = cProfile.Profile(time.process_time) if profile else None
    captured = None if profile else CaptureQueriesContext(connection)
    with contextlib.nullcontext() if captured is None else captured:
        started = time.process_time()
        for booking_id in booking_ids:
            if profiler:
                profiler.enable()
            booking_dispatch_next(booking_id=booking_id)
            if profiler:
                profiler.disable()
        cpu = time.process_time() - started
    statements: Counter[str] = Counter()
    for query in [] if captured is None else captured.captured_queries:
        # One line per kind of statement: literals and savepoint names folded.
        shape = re.sub(r"'[^']*'|\b[sx\d_]*\d+\b", "?", " ".join(query["sql"].split()))
        statements[shape[:100]] += 1
    outcomes = Counter(Booking.objects.filter(pk__in=booking_ids).values_list("status", flat=True))
    count = len(booking_ids)
    print(f"\n== {label}: {count} steps, {dict(outcomes)}")
    print(f"CPU per step {1000 * cpu / count:.1f} ms{' (profiled)' if profile else ''}")
    if captured is not None:
        print(f"statements per step {len(captured.captured_queries) / count:.1f}")
    for sql, times in statements.most_common():
        print(f"  {times / count:5.1f}  {sql}")
    if profiler:
        pstats.Stats(profiler).sort_stats("cumulative").print_stats(top)


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--drivers", type=int, default=1000)
    parser.add_argument("--offered", type=int, default=50)
    parser.add_argument("--no-driver", type=int, default=20)
    parser.add_argument("--redis", default="redis://127.0.0.1:6379/6")
    parser.add_argument("--top", type=int, default=40)
    parser.add_argument("--no-profile", action="store_true", help="CPU and statements only")
    args = parser.parse_args()

    server_url = os.environ.get("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/postgres")
    if not server_url.startswith("postgres"):
        print("profile_dispatch_step needs PostgreSQL", file=sys.stderr)
        return 2
    os.environ.update(settings_environment(server_url, args.redis))
    import django
    import redis

    django.setup()
    from django.db import connection
    from django.utils import timezone

    from bookings.models import Booking

    redis.Redis.from_url(args.redis).flushdb()
    connection.settings_dict["TEST"]["NAME"] = TEST_DB_NAME
    old_name = connection.creation.create_test_db(verbosity=0, autoclobber=True, serialize=False)
    try:
        rng = random.Random(11)
        load_drivers(args.drivers, rng)
        positions_index_load(timezone.now())
        with connection.cursor() as cursor:
            cursor.execute("ANALYZE")
        # The dispatcher claims a booking before a worker runs its step: so does this.
        built = [booking_build(i, rng, prefix="PROF") for i in range(args.drivers * 2)]
        for booking in built:
            booking.dispatch_started_at = timezone.now()
        ids = [b.pk for b in Booking.objects.bulk_create(built)]
        steps(ids[:5], profile=False, top=0, label="warm-up")
        profile = not args.no_profile
        steps(ids[5 : 5 + args.offered], profile=profile, top=args.top, label="offered")
        # Every driver left takes an offer (unprofiled), so the next steps find nobody.
        rest = ids[5 + args.offered : args.drivers + 5]
        for booking_id in rest:
            from dispatch.services.offers import booking_dispatch_next

            booking_dispatch_next(booking_id=booking_id)
        tail = ids[args.drivers + 5 : args.drivers + 5 + args.no_driver]
        steps(tail, profile=profile, top=args.top, label="no_driver")
    finally:
        connection.creation.destroy_test_db(old_name, verbosity=0)
    return 0


if __name__ == "__main__":
    sys.exit(main())
