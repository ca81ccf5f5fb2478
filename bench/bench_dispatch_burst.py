"""Dispatch burst: 1,000 bookings through the real Celery worker on Redis.

Creates a throwaway PostgreSQL database (Django's test-database machinery, name
``dtd_bench_dispatch_burst``), loads online drivers in a few cities and confirmed bookings
around the same cities, starts ``celery -A config worker`` as a subprocess (production
settings, console job cards, its own Redis database), enqueues
``dispatch.tasks.booking_dispatch_start`` for every booking at once and waits until each
has left ``confirmed`` (offered, or no_driver when nobody fits). Nobody answers the job
cards, so every offer stays open for the run and every driver offered a job is taken.

Then it checks with SQL, during the run (sampled) and at the end: at most one open offer
per booking and per driver, no two offers of one driver (or one booking) open at the same
time, no driver above their maximum job load, and every booking's status agreeing with
its offers. Prints one table; exit status 1 when a check fails or the run times out.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres \\
        .venv/bin/python bench/bench_dispatch_burst.py [--drivers 2000] [--bookings 1000] \\
        [--concurrency 2] [--redis redis://127.0.0.1:6379/6] [--timeout 300]

The bookings are inserted in bulk and their dispatch tasks enqueued directly, as the
``booking.created`` receiver does after commit: the figure is dispatch, not booking
creation (bench_intake and the HTTP bench measure that).
"""

from __future__ import annotations

import argparse
import os
import random
import signal
import subprocess
import sys
import tempfile
import time
from datetime import timedelta
from decimal import Decimal
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.common import database_url, driver_vehicle, jitter, online_driver  # noqa: E402

TEST_DB_NAME = "dtd_bench_dispatch_burst"

# (city, lat, lng, share of drivers and bookings)
CITIES = [
    ("London", 51.507, -0.128, 40),
    ("Birmingham", 52.486, -1.890, 15),
    ("Manchester", 53.481, -2.242, 15),
    ("Leeds", 53.797, -1.548, 10),
    ("Glasgow", 55.864, -4.252, 10),
    ("Bristol", 51.455, -2.588, 10),
]
# (vehicle class, seats, share of drivers, share of bookings)
CLASSES = [
    ("saloon", 4, 78, 84),
    ("estate", 4, 8, 5),
    ("mpv", 8, 9, 7),
    ("wav", 4, 5, 4),
]
AUTHORITY = "Bench Council"


def settings_environment(database_url: str, redis_url: str) -> dict[str, str]:
    """What the bench and its worker both run with: production settings, nothing external."""
    return {
        "DJANGO_SETTINGS_MODULE": "config.settings.production",
        "DATABASE_URL": database_url,
        "REDIS_URL": redis_url,
        "CELERY_BROKER_URL": redis_url,
        "CELERY_TASK_ALWAYS_EAGER": "0",
        "SECRET_KEY": "bench-dispatch-burst-not-a-secret",
        "NOTIFICATION_BACKEND": "console",
        "EMAIL_BACKEND": "django.core.mail.backends.locmem.EmailBackend",
        "SECURE_SSL_REDIRECT": "0",
        "ADMIN_EMAILS": "",
        # Nobody answers during the run: keep offers open and drivers "seen" throughout.
        "DISPATCH_OFFER_TIMEOUT_SECONDS": "3600",
        "DISPATCH_DRIVER_SEEN_WITHIN_SECONDS": "3600",
    }


def load_drivers(count: int, rng: random.Random) -> None:
    from django.utils import timezone

    from drivers.models import Driver, Vehicle

    now = timezone.now()
    expiry = timezone.localdate() + timedelta(days=365)
    drivers = []
    for i in range(count):
        _, lat, lng, _ = rng.choices(CITIES, weights=[c[3] for c in CITIES])[0]
        position = jitter(lat, lng, 8, rng)
        drivers.append(
            online_driver(
                i,
                position=position,
                base=position,
                authority=AUTHORITY,
                radius_km=40,
                now=now,
                expiry=expiry,
            )
        )
    Driver.objects.bulk_create(drivers, batch_size=1000)
    vehicles = []
    for driver in drivers:
        vclass, seats, _, _ = rng.choices(CLASSES, weights=[c[2] for c in CLASSES])[0]
        vehicles.append(
            driver_vehicle(
                driver, vehicle_class=vclass, seats=seats, authority=AUTHORITY, expiry=expiry
            )
        )
    Vehicle.objects.bulk_create(vehicles, batch_size=1000)


def load_bookings(count: int, rng: random.Random) -> list[int]:
    from django.utils import timezone

    from bookings.models import Booking, BookingStatus

    pickup_time = timezone.now() + timedelta(hours=1)
    bookings = []
    for i in range(count):
        city, lat, lng, _ = rng.choices(CITIES, weights=[c[3] for c in CITIES])[0]
        plat, plng = jitter(lat, lng, 6, rng)
        dlat, dlng = jitter(lat, lng, 15, rng)
        vclass = rng.choices(CLASSES, weights=[c[3] for c in CLASSES])[0][0]
        bookings.append(
            Booking(
                reference=f"BURST{i:06d}",
                status=BookingStatus.CONFIRMED,
                source="api",
                passenger_name="Jo Bloggs",
                passenger_email="jo.bloggs@example.co.uk",
                passenger_phone="+447700900123",
                pickup=f"{city} pickup {i}",
                dropoff=f"{city} dropoff {i}",
                pickup_lat=plat,
                pickup_lng=plng,
                dropoff_lat=dlat,
                dropoff_lng=dlng,
                pickup_time=pickup_time,
                passengers=rng.choice([1, 1, 2, 3]),
                vehicle_type=vclass,
                wheelchair_access=vclass == "wav",
                fare=Decimal("25.00"),
            )
        )
    return [b.pk for b in Booking.objects.bulk_create(bookings, batch_size=1000)]


# Each query counts the rows that break one invariant: every count must be 0.
INVARIANTS = [
    (
        "at most one open offer per booking",
        """SELECT count(*) FROM (SELECT booking_id FROM dispatch_offer WHERE status = 'open'
           GROUP BY booking_id HAVING count(*) > 1) AS twice""",
    ),
    (
        "at most one open offer per driver",
        """SELECT count(*) FROM (SELECT driver_id FROM dispatch_offer
           WHERE status = 'open' AND driver_id IS NOT NULL
           GROUP BY driver_id HAVING count(*) > 1) AS twice""",
    ),
    (
        "no driver above max_jobs",
        "SELECT count(*) FROM drivers_driver WHERE current_jobs > max_jobs",
    ),
]
# Only meaningful once the burst is over.
FINAL_INVARIANTS = [
    (
        "no two offers of a driver overlap in time",
        """SELECT count(*) FROM dispatch_offer a JOIN dispatch_offer b
           ON a.driver_id = b.driver_id AND a.id < b.id
           AND tstzrange(a.created_at, a.responded_at) && tstzrange(b.created_at, b.responded_at)""",
    ),
    (
        "no two offers of a booking overlap in time",
        """SELECT count(*) FROM dispatch_offer a JOIN dispatch_offer b
           ON a.booking_id = b.booking_id AND a.id < b.id
           AND tstzrange(a.created_at, a.responded_at) && tstzrange(b.created_at, b.responded_at)""",
    ),
    (
        "offered bookings have exactly one open offer",
        """SELECT count(*) FROM bookings_booking bk WHERE bk.status = 'offered'
           AND (SELECT count(*) FROM dispatch_offer o
                WHERE o.booking_id = bk.id AND o.status = 'open') <> 1""",
    ),
    (
        "no_driver bookings have no open offer",
        """SELECT count(*) FROM bookings_booking bk WHERE bk.status = 'no_driver'
           AND EXISTS (SELECT 1 FROM dispatch_offer o
                       WHERE o.booking_id = bk.id AND o.status = 'open')""",
    ),
    (
        "open offers go to online drivers with room",
        """SELECT count(*) FROM dispatch_offer o JOIN drivers_driver d ON d.id = o.driver_id
           WHERE o.status = 'open' AND (NOT d.online OR d.current_jobs >= d.max_jobs)""",
    ),
]


def count(sql: str) -> int:
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute(sql)
        return cursor.fetchone()[0]


def status_counts() -> dict[str, int]:
    from django.db.models import Count

    from bookings.models import Booking

    rows = Booking.objects.values_list("status").annotate(n=Count("id")).order_by()
    return dict(rows)


def worker_start(env: dict[str, str], concurrency: int, log) -> subprocess.Popen:
    command = [
        sys.executable,
        "-m",
        "celery",
        "-A",
        "config",
        "worker",
        f"--concurrency={concurrency}",
        "--loglevel=WARNING",
        "--without-gossip",
        "--without-mingle",
        f"--hostname=bench-burst-{os.getpid()}@%h",
    ]
    # Its own session, so that stopping it reaches the pool processes too.
    return subprocess.Popen(  # noqa: S603 (our own interpreter and arguments)
        command, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
    )


def worker_wait_ready(app, worker: subprocess.Popen, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if worker.poll() is not None:
            raise RuntimeError(f"the worker exited with status {worker.returncode}")
        if app.control.ping(timeout=0.5):
            return
    raise RuntimeError("the worker did not answer a ping in time")


def worker_stop(worker: subprocess.Popen) -> None:
    if worker.poll() is not None:
        return
    os.killpg(worker.pid, signal.SIGTERM)  # warm shutdown of the worker we started
    try:
        worker.wait(timeout=30)
    except subprocess.TimeoutExpired:
        os.killpg(worker.pid, signal.SIGKILL)
        worker.wait(timeout=10)


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--drivers", type=int, default=2000)
    parser.add_argument("--bookings", type=int, default=1000)
    parser.add_argument("--concurrency", type=int, default=2)
    parser.add_argument("--redis", default="redis://127.0.0.1:6379/6")
    parser.add_argument("--timeout", type=float, default=300, help="seconds to wait for dispatch")
    parser.add_argument("--seed", type=int, default=11)
    args = parser.parse_args()

    server_url = os.environ.get("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/postgres")
    if not server_url.startswith("postgres"):
        print(
            "bench_dispatch_burst needs PostgreSQL (DATABASE_URL=postgres://...)", file=sys.stderr
        )
        return 2
    os.environ.update(settings_environment(server_url, args.redis))

    import django
    import redis

    django.setup()

    from django.db import connection

    from config.celery import app
    from dispatch.relay import bookings_dispatch_claim_all

    broker = redis.Redis.from_url(args.redis)
    broker.flushdb()  # a queue left over from an interrupted run would skew the figure
    connection.settings_dict["TEST"]["NAME"] = TEST_DB_NAME
    old_name = connection.creation.create_test_db(verbosity=0, autoclobber=True, serialize=False)
    worker = None
    log = tempfile.NamedTemporaryFile(  # noqa: SIM115 (read back after the worker stops)
        "w+", prefix="bench_dispatch_burst_worker_", suffix=".log", delete=False
    )
    try:
        rng = random.Random(args.seed)
        load_drivers(args.drivers, rng)
        booking_ids = load_bookings(args.bookings, rng)
        with connection.cursor() as cursor:
            cursor.execute("ANALYZE")

        env = {
            **os.environ,
            **settings_environment(database_url(server_url, TEST_DB_NAME), args.redis),
        }
        worker = worker_start(env, args.concurrency, log)
        worker_wait_ready(app, worker)

        # Handed over as the dispatcher does: claimed from the bookings table, 100 at a
        # time, one task message per booking.
        started = time.perf_counter()
        bookings_dispatch_claim_all()
        enqueued_s = time.perf_counter() - started

        samples = violations_during_run = 0
        remaining = len(booking_ids)
        while time.perf_counter() - started < args.timeout:
            remaining = status_counts().get("confirmed", 0)
            samples += 1
            violations_during_run += sum(count(sql) for _, sql in INVARIANTS)
            if not remaining or worker.poll() is not None:
                break
            time.sleep(0.2)
        dispatched_s = time.perf_counter() - started

        # Job cards (two per offer) finish after the last dispatch decision.
        open_offers = count("SELECT count(*) FROM dispatch_offer WHERE status = 'open'")
        cards = 0
        while time.perf_counter() - started < args.timeout and worker.poll() is None:
            cards = count("SELECT count(*) FROM dispatch_notificationlog")
            if cards >= 2 * open_offers:
                break
            time.sleep(0.2)
        drained_s = time.perf_counter() - started

        statuses = status_counts()
        checks = [(name, count(sql)) for name, sql in INVARIANTS + FINAL_INVARIANTS]
        offers_total = count("SELECT count(*) FROM dispatch_offer")
        drivers_offered = count(
            "SELECT count(DISTINCT driver_id) FROM dispatch_offer WHERE driver_id IS NOT NULL"
        )
    finally:
        if worker is not None:
            worker_stop(worker)
        connection.creation.destroy_test_db(old_name, verbosity=0)
        broker.flushdb()

    n = len(booking_ids)
    offered = statuses.get("offered", 0) + statuses.get("accepted", 0)
    no_driver = statuses.get("no_driver", 0)
    timed_out = remaining > 0
    print(
        f"\nDispatch burst: {n:,} bookings, {args.drivers:,} online drivers in {len(CITIES)} "
        f"cities, celery worker --concurrency={args.concurrency} on Redis, "
        f"PostgreSQL {connection.pg_version // 10000}"
    )
    print("-" * 79)
    rows = [
        (f"hand over {n:,} bookings (claimed by the dispatcher)", f"{enqueued_s:.2f} s"),
        ("every booking out of confirmed", f"{dispatched_s:.2f} s"),
        ("dispatch rate", f"{n / dispatched_s:.0f} bookings/s"),
        ("job cards sent (SMS + WhatsApp)", f"{cards:,} by {drained_s:.2f} s"),
        ("offered / no_driver / still confirmed", f"{offered:,} / {no_driver:,} / {remaining:,}"),
        ("offers made / distinct drivers offered", f"{offers_total:,} / {drivers_offered:,}"),
        (f"invariant samples during the run ({samples})", f"{violations_during_run} violations"),
    ]
    for label, value in rows:
        print(f"{label:<52}{value:>27}")
    print("-" * 79)
    failed = timed_out
    for name, violations in checks:
        failed |= violations > 0
        verdict = "PASS" if violations == 0 else f"FAIL ({violations})"
        print(f"{name:<52}{verdict:>27}")
    failed |= violations_during_run > 0
    print("-" * 79)
    print(
        f"every booking offered to one driver at a time, no driver double-booked: "
        f"{'FAIL' if failed else 'PASS'}"
    )
    if timed_out or worker.returncode not in (0, None, -signal.SIGTERM):
        print(f"worker log: {log.name}")
    else:
        log.close()
        os.unlink(log.name)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
