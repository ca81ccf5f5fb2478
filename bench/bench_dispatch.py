"""Dispatch benchmark: candidate selection over 100,000 online drivers across Great Britain.

Creates a throwaway PostgreSQL database (Django's test-database machinery, name
``dtd_bench_dispatch``), loads the drivers, then for a sample of pickups measures:

- indexed: the matcher as dispatch runs it (dispatch.services.matching.candidate_next,
  tier after tier, returning the Candidate with its driver and vehicle): per ring, the
  nearest drivers from the live-position index (drivers.positions: Redis GEO when
  REDIS_URL is set, else the indexed (online, last_lat, last_lng) columns), then one SQL
  statement filtering those drivers, rings growing from 500 m;
- full scan: the same filters and ordering over every online driver, without the
  bounding box (what a matcher without a position index does), built from the matcher's
  ORM rules (_driver_rules): a second rendering of the filters, so the last line of the
  table also checks that the two agree.

Prints one table. Target: median under 5 ms per booking and at least 20x faster than the
full scan.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres \\
        .venv/bin/python bench/bench_dispatch.py [--drivers 100000] [--bookings 300]
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

from django.db import connection  # noqa: E402
from django.utils import timezone  # noqa: E402

from bench.common import (  # noqa: E402
    driver_vehicle,
    jitter,
    online_driver,
    positions_index_load,
)
from drivers.positions import positions_backend  # noqa: E402

# Towns and cities with a rough weight for how many drivers work there.
CITIES = [
    ("London", 51.507, -0.128, 30),
    ("Birmingham", 52.486, -1.890, 6),
    ("Manchester", 53.481, -2.242, 6),
    ("Leeds", 53.797, -1.548, 5),
    ("Glasgow", 55.864, -4.252, 5),
    ("Liverpool", 53.408, -2.992, 4),
    ("Newcastle", 54.978, -1.618, 3),
    ("Sheffield", 53.381, -1.470, 3),
    ("Bristol", 51.455, -2.588, 3),
    ("Edinburgh", 55.953, -3.188, 3),
    ("Cardiff", 51.481, -3.179, 2),
    ("Leicester", 52.637, -1.139, 2),
    ("Nottingham", 52.954, -1.158, 2),
    ("Coventry", 52.407, -1.508, 2),
    ("Bradford", 53.796, -1.759, 2),
    ("Southampton", 50.910, -1.404, 2),
    ("Brighton", 50.823, -0.137, 2),
    ("Plymouth", 50.376, -4.143, 1),
    ("Aberdeen", 57.150, -2.094, 1),
    ("York", 53.960, -1.082, 1),
    ("Norwich", 52.630, 1.297, 1),
    ("Oxford", 51.752, -1.258, 1),
    ("Cambridge", 52.205, 0.122, 1),
    ("Exeter", 50.718, -3.534, 1),
    ("Inverness", 57.478, -4.224, 1),
    ("Swansea", 51.621, -3.944, 1),
    ("Hull", 53.745, -0.336, 1),
    ("Stoke", 53.003, -2.180, 1),
    ("Derby", 52.922, -1.476, 1),
    ("Reading", 51.454, -0.978, 1),
]
CLASSES = [("saloon", 4, 70), ("estate", 4, 10), ("mpv", 8, 10), ("executive", 4, 5), ("wav", 4, 5)]
GB_BOX = (50.0, 58.6, -5.7, 1.7)


def driver_position(rng: random.Random) -> tuple[float, float]:
    if rng.random() < 0.3:  # spread over the whole country
        return rng.uniform(*GB_BOX[:2]), rng.uniform(*GB_BOX[2:])
    _, lat, lng, _ = rng.choices(CITIES, weights=[c[3] for c in CITIES])[0]
    return jitter(lat, lng, 10, rng)


def load_drivers(count: int, rng: random.Random) -> None:
    from drivers.models import Driver, Vehicle

    now = timezone.now()
    expiry = timezone.localdate() + timedelta(days=365)
    batch = 5000
    for start in range(0, count, batch):
        drivers = []
        for i in range(start, min(count, start + batch)):
            position = driver_position(rng)
            base = jitter(*position, 3, rng)
            drivers.append(
                online_driver(
                    i,
                    position=position,
                    base=base,
                    authority="Council",
                    radius_km=25,
                    now=now,
                    expiry=expiry,
                    current_jobs=rng.choice([0, 0, 0, 1]),
                )
            )
        Driver.objects.bulk_create(drivers)
        vehicles = []
        for driver in drivers:
            vclass, seats, _ = rng.choices(CLASSES, weights=[c[2] for c in CLASSES])[0]
            vehicles.append(
                driver_vehicle(
                    driver, vehicle_class=vclass, seats=seats, authority="Council", expiry=expiry
                )
            )
        Vehicle.objects.bulk_create(vehicles)
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE drivers_driver; ANALYZE drivers_vehicle;")


def sample_jobs(count: int, rng: random.Random):
    from dispatch.services.matching import JobRequirements

    pickup_date = timezone.localdate()
    jobs = []
    for _ in range(count):
        _, lat, lng, _ = rng.choices(CITIES, weights=[c[3] for c in CITIES])[0]
        plat, plng = jitter(lat, lng, 6, rng)
        dlat, dlng = jitter(lat, lng, 20, rng)
        vclass = rng.choices(["saloon", "estate", "mpv", "wav"], weights=[80, 8, 8, 4])[0]
        jobs.append(
            JobRequirements(
                pickup_lat=plat,
                pickup_lng=plng,
                dropoff_lat=dlat,
                dropoff_lng=dlng,
                pickup_date=pickup_date,
                passengers=rng.choice([1, 1, 2, 3]),
                vehicle_type=vclass,
                wheelchair=vclass == "wav",
            )
        )
    return jobs


def select_indexed(job, now):
    from dispatch.services import matching

    for tier in matching.TIERS:
        candidate = matching.candidate_next(tier=tier, job=job, now=now)
        if candidate is not None:
            return candidate.driver.pk if candidate.driver else None
    return None


def select_full_scan(job, now):
    """The same eligibility and ordering without the bounding box: every online driver."""
    from django.db.models import F, Q

    from core.geo import distance_sq_km_expression
    from dispatch import conf
    from dispatch.services.matching.rules import _driver_rules
    from drivers.models import NetworkTier, Vehicle

    seen_after = now - timedelta(seconds=conf.driver_seen_within_seconds())
    rules = _driver_rules(
        job=job,
        seen_fails=Q(driver__last_seen_at__isnull=True) | Q(driver__last_seen_at__lt=seen_after),
    )
    eligible = Q()
    for _reason, fails in rules:
        eligible &= ~fails
    from django.db.models import Exists, OuterRef

    from dispatch.models import Offer

    row = (
        Vehicle.objects.filter(active=True, driver__online=True, driver__network=NetworkTier.LOCAL)
        .annotate(
            dead_sq=distance_sq_km_expression(
                "driver__last_lat", "driver__last_lng", job.pickup_lat, job.pickup_lng
            ),
            base_sq=distance_sq_km_expression(
                "driver__base_lat", "driver__base_lng", job.pickup_lat, job.pickup_lng
            ),
            operator_authority=F("driver__approved_by__operator_licence__licensing_authority"),
            offer_pending=Exists(
                Offer.objects.filter(driver_id=OuterRef("driver_id"), status="open")
            ),
        )
        .filter(
            eligible,
            base_sq__lte=F("driver__operating_radius_km") * F("driver__operating_radius_km"),
        )
        .order_by("dead_sq", "driver__current_jobs", "driver_id")
        .values_list("driver_id", flat=True)
        .first()
    )
    return row


def timed(fn, jobs, now) -> tuple[list[float], list]:
    times, results = [], []
    for job in jobs:
        started = time.perf_counter()
        results.append(fn(job, now))
        times.append((time.perf_counter() - started) * 1000)
    return times, results


def percentile(values: list[float], pct: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(pct / 100 * (len(ordered) - 1))))]


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--drivers", type=int, default=100_000)
    parser.add_argument("--bookings", type=int, default=300)
    parser.add_argument("--full-scan-bookings", type=int, default=40)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()

    if connection.vendor != "postgresql":
        print("bench_dispatch needs PostgreSQL (DATABASE_URL=postgres://...)", file=sys.stderr)
        return 2
    # Its own throwaway database: never the test database the suite may be using.
    connection.settings_dict["TEST"]["NAME"] = "dtd_bench_dispatch"
    old_name = connection.creation.create_test_db(verbosity=0, autoclobber=True, serialize=False)
    try:
        rng = random.Random(args.seed)
        started = time.perf_counter()
        load_drivers(args.drivers, rng)
        now = timezone.now()
        positions_index_load(now)  # the live-position index, when it is Redis
        load_seconds = time.perf_counter() - started
        jobs = sample_jobs(args.bookings, rng)
        timed(select_indexed, jobs[:20], now)  # warm caches and plans
        indexed_ms, indexed_found = timed(select_indexed, jobs, now)
        scan_jobs = jobs[: args.full_scan_bookings]
        scan_ms, scan_found = timed(select_full_scan, scan_jobs, now)
        # Same answer from both (ties aside): the index changes speed, not choices.
        same = sum(a == b for a, b in zip(indexed_found, scan_found, strict=False))
    finally:
        connection.creation.destroy_test_db(old_name, verbosity=0)

    med_i, med_s = statistics.median(indexed_ms), statistics.median(scan_ms)
    print(
        f"\nCandidate selection, {args.drivers:,} online drivers over Great Britain "
        f"(loaded in {load_seconds:.0f} s), PostgreSQL {connection.pg_version // 10000}"
    )
    print(f"{'method':<34}{'bookings':>9}{'median ms':>11}{'p95 ms':>9}{'max ms':>9}{'found':>7}")
    print("-" * 79)
    for name, times, found in (
        (f"index ({positions_backend().name}) + SQL (dispatch)", indexed_ms, indexed_found),
        ("full scan, same filters", scan_ms, scan_found),
    ):
        print(
            f"{name:<34}{len(times):>9}{statistics.median(times):>11.2f}"
            f"{percentile(times, 95):>9.2f}{max(times):>9.2f}{sum(f is not None for f in found):>7}"
        )
    print("-" * 79)
    speedup = med_s / med_i
    print(
        f"speed-up (median): {speedup:.0f}x   target: median < 5 ms and >= 20x   "
        f"{'PASS' if med_i < 5 and speedup >= 20 else 'FAIL'}"
    )
    print(f"same driver chosen by both methods: {same}/{len(scan_found)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
