"""Live trips benchmark (issue 17): 2,000 cars on live trips, each reporting its position
every 5 s (400 reports/s), and the booking.driver_location sender keeping every opted-in
partner at most one event per booking per 15 s without falling behind.

Creates a throwaway PostgreSQL database next to DATABASE_URL's, migrates it, creates 5
opted-in partners whose webhook URLs point at a receiver in this process (a threaded HTTP
server that verifies every signature), 2,000 drivers with app tokens and one accepted job
each. Then, at the same time, for ``--duration`` seconds:

- reporter processes (``--reporters``, default 2) post ``POST /api/public/v1/driver/location``
  through the whole Django stack in-process (middleware, token authentication, input
  serializer, the service's one UPDATE; no socket), each car every 5 s on its schedule,
  moving along a line;
- one sender process runs the beat tick every ``DRIVER_LOCATION_TICK_SECONDS`` (2 s): claim
  the due bookings, send each partner one signed message per batch over HTTP (as one
  Celery worker would), recording how long each tick took.

Afterwards, an unpaced phase measures how many reports/s the reporters can handle at most.
Prints: reports/s handled (paced and at most), events sent, messages, the most events any
booking got in a 15 s window (by the messages' timestamps), the longest gap between a
moving car's events, the age of positions on arrival, and the sender's tick times.

    .venv/bin/python bench/bench_live_trips.py [--drivers 2000] [--duration 60] [--keep]
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import statistics
import sys
import threading
import time
from collections import defaultdict
from datetime import datetime, timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.common import database_recreate, database_url, jitter  # noqa: E402

DB_NAME = "dtd_bench_live"
PARTNERS = 5
REPORT_EVERY = 5.0  # seconds, per car
LEEDS = (53.7955, -1.5491)


# --- the partners' receiver -------------------------------------------------------------


class Receiver:
    """Records every location it is sent; verifies each message's signature."""

    def __init__(self, secrets: dict[str, str]) -> None:
        self.secrets = secrets
        self.lock = threading.Lock()
        # booking reference -> [(message timestamp, position reportedAt, arrival)]
        self.events: dict[str, list[tuple[float, float, float]]] = defaultdict(list)
        self.messages = 0
        self.bad_signatures = 0

    def record(self, slug: str, headers, body: bytes) -> None:
        from standardwebhooks.webhooks import Webhook, WebhookVerificationError

        arrived = time.time()
        secret = self.secrets[slug]
        valid = False
        for key in (secret, secret.encode()):
            try:
                Webhook(key).verify(body, dict(headers))
                valid = True
                break
            except (WebhookVerificationError, ValueError, TypeError):
                continue
        message = json.loads(body)
        sent = _epoch(message["timestamp"])
        with self.lock:
            self.messages += 1
            self.bad_signatures += not valid
            for location in message["data"]["locations"]:
                self.events[location["bookingReference"]].append(
                    (sent, _epoch(location["reportedAt"]), arrived)
                )


def _epoch(iso: str) -> float:
    return datetime.fromisoformat(iso.replace("Z", "+00:00")).timestamp()


def receiver_start(receiver: Receiver) -> ThreadingHTTPServer:
    class Handler(BaseHTTPRequestHandler):
        def do_POST(self):  # noqa: N802 (http.server's name)
            body = self.rfile.read(int(self.headers["Content-Length"]))
            receiver.record(self.path.rsplit("/", 1)[-1], self.headers, body)
            self.send_response(204)
            self.end_headers()

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


# --- the processes ----------------------------------------------------------------------


def reporter(cars: list[tuple[str, float, float]], start: float, duration: float, paced, out):
    """Post each car's position every REPORT_EVERY s from ``start`` (or as fast as possible
    when not ``paced``); put (reports, seconds, worst lag behind schedule) on ``out``."""
    import django
    from django.db import connections

    django.setup()
    connections.close_all()
    from django.test import Client

    client = Client()
    # Warm up (imports, URL resolver, first connection) before the clock starts; the
    # first car's report is repeated on schedule anyway.
    token, lat, lng = cars[0]
    client.post(
        "/api/public/v1/driver/location",
        data=json.dumps({"lat": lat, "lng": lng}),
        content_type="application/json",
        HTTP_AUTHORIZATION=f"Token {token}",
    )
    if not paced:
        start = time.time()
    count, worst_lag = 0, 0.0
    offsets = [REPORT_EVERY * i / len(cars) for i in range(len(cars))]
    rounds = 0
    while True:
        for (token, lat, lng), offset in zip(cars, offsets, strict=True):
            due = start + rounds * REPORT_EVERY + offset
            now = time.time()
            # Stop at the end of the schedule, or at the deadline when behind it.
            if (paced and due - start >= duration) or now - start >= duration:
                out.put((count, max(duration, now - start), worst_lag))
                return
            if paced:
                if due > now:
                    time.sleep(due - now)
                else:
                    worst_lag = max(worst_lag, now - due)
            step = rounds * 0.0005  # about 50 m north-east every report
            body = json.dumps({"lat": lat + step, "lng": lng + step, "heading": 45})
            response = client.post(
                "/api/public/v1/driver/location",
                data=body,
                content_type="application/json",
                HTTP_AUTHORIZATION=f"Token {token}",
            )
            assert response.status_code == 200, response.content[:300]
            count += 1
        rounds += 1


def sender(start: float, duration: float, out) -> None:
    """The beat tick as one worker runs it: claim, then send each batch in turn."""
    import django
    from django.conf import settings
    from django.db import connections

    django.setup()
    connections.close_all()
    from partners.services.driver_locations import (
        driver_location_batches,
        driver_locations_claim,
        driver_locations_deliver,
    )

    tick = settings.DRIVER_LOCATION_TICK_SECONDS
    ticks: list[float] = []
    messages = failed = 0
    driver_locations_claim()  # warm up: imports and the first connection
    time.sleep(max(0.0, start - time.time()))
    while time.time() < start + duration + 3:
        began = time.monotonic()
        for account_id, booking_ids in driver_location_batches(driver_locations_claim()):
            outcome = driver_locations_deliver(account_id=account_id, booking_ids=booking_ids)
            messages += 1
            failed += not outcome.delivered
        elapsed = time.monotonic() - began
        ticks.append(elapsed)
        time.sleep(max(0.0, tick - elapsed))
    out.put((ticks, messages, failed))


# --- set-up -------------------------------------------------------------------------------


def world_create(drivers: int, hook_base: str) -> tuple[list[tuple[str, float, float]], dict]:
    import random

    from django.contrib.auth import get_user_model
    from django.utils import timezone
    from rest_framework.authtoken.models import Token

    from bench.common import online_driver
    from bookings.models import Booking, BookingStatus
    from bookings.references import reference_generate
    from partners.models import Account
    from partners.services import account_create

    rng = random.Random(17)
    now = timezone.now()
    secrets = {}
    accounts = []
    for number in range(PARTNERS):
        account, _ = account_create(
            kind="partner", name=f"Live Partner {number}", webhook_url=f"{hook_base}/p{number}"
        )
        Account.objects.filter(pk=account.pk).update(slug=f"p{number}", driver_location_events=True)
        secrets[f"p{number}"] = account.signing_secret
        accounts.append(account)

    User = get_user_model()
    users = User.objects.bulk_create(
        [User(username=f"live{n}@example.co.uk", password="!") for n in range(drivers)]
    )
    tokens = Token.objects.bulk_create(
        [Token(user=user, key=Token.generate_key()) for user in users]
    )
    cars = []
    rows = []
    for number, user in enumerate(users):
        position = jitter(*LEEDS, 5, rng)
        row = online_driver(
            number,
            position=position,
            base=LEEDS,
            authority="Leeds City Council",
            radius_km=25,
            now=now,
            expiry=now.date() + timedelta(days=365),
            current_jobs=1,
        )
        row.user = user
        rows.append(row)
        cars.append(position)
    from drivers.models import Driver

    created = Driver.objects.bulk_create(rows, batch_size=1000)
    bookings = []
    for number, driver in enumerate(created):
        pickup = jitter(*LEEDS, 5, rng)
        bookings.append(
            Booking(
                reference=reference_generate(),
                status=BookingStatus.ACCEPTED,
                source="partner",
                account=accounts[number % PARTNERS],
                job_ref=f"LIVE-{number}",
                passenger_name="Bench Passenger",
                pickup="Leeds",
                dropoff="York",
                pickup_lat=pickup[0],
                pickup_lng=pickup[1],
                dropoff_lat=53.9581,
                dropoff_lng=-1.0803,
                pickup_time=now + timedelta(minutes=20),
                fare="38.20",
                driver=driver,
                dispatch_started_at=now,
            )
        )
    Booking.objects.bulk_create(bookings, batch_size=1000)
    return [(token.key, lat, lng) for token, (lat, lng) in zip(tokens, cars, strict=True)], secrets


def processes_run(cars, *, reporters: int, duration: float, paced: bool, with_sender: bool):
    context = multiprocessing.get_context("fork")
    out = context.Queue()
    senders = context.Queue()
    start = time.time() + 5  # after every process has warmed up
    shares = [cars[i::reporters] for i in range(reporters)]
    workers = [
        context.Process(target=reporter, args=(share, start, duration, paced, out))
        for share in shares
    ]
    if with_sender:
        workers.append(context.Process(target=sender, args=(start, duration, senders)))
    for worker in workers:
        worker.start()
    reports = [out.get() for _ in shares]
    tick_stats = senders.get() if with_sender else None
    for worker in workers:
        worker.join()
    return reports, tick_stats


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--drivers", type=int, default=2000)
    parser.add_argument("--duration", type=float, default=60)
    parser.add_argument("--reporters", type=int, default=2)
    parser.add_argument("--max-seconds", type=float, default=10, help="unpaced phase")
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
        WEBHOOK_ALLOW_PRIVATE_NETWORKS="1",
        LOG_LEVEL="WARNING",
    )
    os.environ.pop("REDIS_URL", None)

    import django

    django.setup()
    from django.conf import settings
    from django.core.management import call_command
    from django.db import connections

    try:
        call_command("migrate", verbosity=0)
        receiver = Receiver({})
        server = receiver_start(receiver)
        hook_base = f"http://127.0.0.1:{server.server_address[1]}/hooks"
        cars, secrets = world_create(args.drivers, hook_base)
        receiver.secrets.update(secrets)
        connections.close_all()

        reports, (ticks, messages, failed) = processes_run(
            cars,
            reporters=args.reporters,
            duration=args.duration,
            paced=True,
            with_sender=True,
        )
        time.sleep(0.5)
        paced_count = sum(r[0] for r in reports)
        paced_rate = paced_count / max(r[1] for r in reports)
        lag = max(r[2] for r in reports)

        interval = settings.DRIVER_LOCATION_EVENT_INTERVAL_SECONDS
        events = sum(len(v) for v in receiver.events.values())
        most_in_window = 0
        shortest_gap = float("inf")
        longest_gap = 0.0
        ages = []
        for stamps in receiver.events.values():
            sent = sorted(s for s, _, _ in stamps)
            for i, first in enumerate(sent):
                in_window = sum(1 for other in sent[i:] if other < first + interval)
                most_in_window = max(most_in_window, in_window)
            gaps = [b - a for a, b in zip(sent, sent[1:], strict=False)]
            if gaps:
                shortest_gap = min(shortest_gap, min(gaps))
                longest_gap = max(longest_gap, max(gaps))
            ages += [arrived - reported for _, reported, arrived in stamps]
        followed = len(receiver.events)

        max_reports, _ = processes_run(
            cars,
            reporters=args.reporters,
            duration=args.max_seconds,
            paced=False,
            with_sender=False,
        )
        max_rate = sum(r[0] for r in max_reports) / max(r[1] for r in max_reports)

        target = args.drivers / REPORT_EVERY
        tick = settings.DRIVER_LOCATION_TICK_SECONDS
        ticks_sorted = sorted(ticks)
        behind = longest_gap > interval + 2 * tick + 1
        rows = [
            ("cars on live trips / partners", f"{args.drivers} / {PARTNERS}", ""),
            (
                f"reports handled, paced ({args.reporters} processes)",
                f"{paced_rate:,.0f}/s ({paced_count:,} in {args.duration:.0f} s; "
                f"worst lag behind schedule {lag:.2f} s)",
                f">= {target:,.0f}/s",
            ),
            ("reports handled at most (unpaced)", f"{max_rate:,.0f}/s", f">= {target:,.0f}/s"),
            (
                "events sent (positions delivered) / messages",
                f"{events:,} ({events / args.duration:,.0f}/s) / {messages:,} ({failed} failed)",
                "",
            ),
            ("bookings that got events", f"{followed:,} of {args.drivers:,}", "all"),
            (
                f"most events for one booking in any {interval} s",
                str(most_in_window),
                "<= 1",
            ),
            (
                "gap between a booking's events: shortest / longest",
                f"{shortest_gap:.1f} s / {longest_gap:.1f} s",
                f">= {interval} s / <= {interval + 2 * tick + 1:.0f} s",
            ),
            (
                "position age on arrival: median / max",
                f"{statistics.median(ages):.2f} s / {max(ages):.2f} s" if ages else "-",
                "",
            ),
            (
                f"sender tick (every {tick:g} s): median / max",
                f"{statistics.median(ticks) * 1000:.0f} ms / {ticks_sorted[-1] * 1000:.0f} ms",
                f"< {tick * 1000:.0f} ms",
            ),
            ("bad signatures", str(receiver.bad_signatures), "0"),
        ]
        width = max(len(r[0]) for r in rows)
        print(f"\n{'measure':<{width}}  {'measured':<60}  target")
        for label, value, goal in rows:
            print(f"{label:<{width}}  {value:<60}  {goal}")
        ok = (
            paced_rate >= 0.97 * target
            and most_in_window <= 1
            and not behind
            and followed == args.drivers
            and receiver.bad_signatures == 0
            and ticks_sorted[-1] < tick
        )
        print("\nPASS" if ok else "\nFAIL (see the targets above)")
        server.shutdown()
        return 0 if ok else 1
    finally:
        connections.close_all()
        if not args.keep:
            database_recreate(admin_url, DB_NAME, drop_only=True)


if __name__ == "__main__":
    sys.exit(main())
