"""Billing benchmark: invoice one week for many drivers on PostgreSQL.

Creates a throwaway database next to DATABASE_URL's (default
postgres://postgres@127.0.0.1:5432/postgres), migrates it, bulk-loads drivers, bookings,
payment records, SMS usage rows and partner job completions with COPY, then runs
``invoices_generate_week`` twice and prints a table. Targets (issue 7): 100,000 drivers
with 2,000,000 payment records invoiced in under 60 s; the second run creates nothing in
under 10 s. The database is dropped afterwards unless --keep.

Then charging (issue 36) against localstripe, several servers started here each on its
own port and stopped by its PID, in memory (``billing.tests.localstripe_in_memory``;
``--localstripe-persist`` for the stock server that pickles its store on every write).
localstripe answers each charge by scanning everything it stores, so one server holding
100,000 customers would measure that scan, not our charging: the drivers are sharded,
``--shard-size`` (default 1,000) to a server, a driver's customer living on the shard its
id maps to (``STRIPE_API_SHARDS``, benchmark only, see billing.provider); 100 shards of
100,000 drivers start in about a minute and hold about 3.8 GB idle. ``--charge-sample``
drivers (default: all the week's billed drivers) get a Stripe customer and a card
(set-up, in parallel processes, timed apart: drivers add cards over weeks, not in the
run), their invoices are handed to ``StripeCollection``, whose ``payments_charge_due``
task hands them in chunks to ``--charge-workers`` real Celery worker processes (Redis at
REDIS_URL is their broker, flushed first); then a second run must send nothing. Printed:
time and charges/s, the load average, CPU per charge of the workers, their PostgreSQL
backends and the shards (from /proc), each process's peak RSS; the extrapolation to all
the week's invoices, when only a sample was charged, is printed as such.

    REDIS_URL=redis://127.0.0.1:6379/8 .venv/bin/python bench/bench_billing.py  # full size
    REDIS_URL=... .venv/bin/python bench/bench_billing.py --charge-sample 20000  # a sample
    .venv/bin/python bench/bench_billing.py --drivers 10000 --records 200000 --charge-sample 0
"""

from __future__ import annotations

import argparse
import os
import random
import resource
import sys
import time
from datetime import UTC, date, datetime, timedelta
from decimal import Decimal
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.common import database_recreate, database_url  # noqa: E402

WEEK = date(2026, 6, 1)  # a Monday; the run happens "the Monday after"
NOW = datetime(2026, 6, 8, 0, 30, tzinfo=UTC)


class Timer:
    def __init__(self) -> None:
        self.rows: list[tuple[str, float, str]] = []

    def run(self, label: str, fn, detail=lambda result: ""):
        start = time.perf_counter()
        result = fn()
        elapsed = time.perf_counter() - start
        self.rows.append((label, elapsed, detail(result)))
        print(f"  {label}: {elapsed:.1f}s {detail(result)}", flush=True)
        return result


def copy_rows(model, columns: list[str], rows) -> int:
    """COPY ``rows`` (tuples in ``columns`` order) into ``model``'s table."""
    from django.db import connection

    table = model._meta.db_table
    count = 0
    quoted = ", ".join(f'"{column}"' for column in columns)
    sql = f'COPY "{table}" ({quoted}) FROM STDIN'
    with connection.cursor() as cursor, cursor.copy(sql) as copy:
        for row in rows:
            copy.write_row(row)
            count += 1
    return count


def model_rows(model, template_kwargs: dict, varying: dict, count: int):
    """Columns and rows for ``count`` instances of ``model``: every concrete column takes
    its value from one template instance (so defaults of fields added by other apps are
    honoured) except the ``varying`` columns, computed per row from the index."""
    from django.db import connection

    template = model(**template_kwargs)
    fields = [f for f in model._meta.concrete_fields if not f.primary_key]
    columns = [f.column for f in fields]
    # pre_save fills auto_now and auto_now_add columns as a real save would.
    base = [f.get_db_prep_save(f.pre_save(template, True), connection) for f in fields]
    positions = {columns.index(col): fn for col, fn in varying.items()}

    def generate():
        for i in range(count):
            row = list(base)
            for pos, fn in positions.items():
                row[pos] = fn(i)
            yield row

    return columns, generate()


def load(args, timer: Timer) -> dict:
    from billing.models import PartnerJobFee, SmsUsage
    from bookings.models import Booking, BookingEvent, PaymentRecord
    from drivers.models import Driver
    from partners.models import Account

    rng = random.Random(7)
    start, end = WEEK_BOUNDS
    span = (end - start).total_seconds()
    partner = Account.objects.create(kind="partner", name="RideHub", slug="ridehub")
    PartnerJobFee.objects.create(account=partner, fee_per_job=Decimal("1.50"))

    long_ago = datetime(2025, 1, 6, tzinfo=UTC)
    recent = datetime(2026, 5, 1, tzinfo=UTC)  # still in the 90-day trial

    columns, rows = model_rows(
        Driver,
        {
            "name": "Bench driver",
            "phone": "+447700900000",
            "stage": "billed",
            "approved_at": long_ago,
            "licensing_authority": "Leeds City Council",
            "licence_number": "LCC",
            "licence_expiry": date(2030, 1, 1),
            "base_city": "Leeds",
            "base_lat": 53.8,
            "base_lng": -1.55,
        },
        {
            "name": lambda i: f"Bench driver {i}",
            "phone": lambda i: f"+4477{i:08d}",
            "licence_number": lambda i: f"LCC{i:07d}",
            # one driver in ten is still in the free trial
            "approved_at": lambda i: recent if i % 10 == 0 else long_ago,
            "stage": lambda i: "trial" if i % 10 == 0 else "billed",
        },
        args.drivers,
    )
    timer.run(f"load {args.drivers:,} drivers (COPY)", lambda: copy_rows(Driver, columns, rows))
    driver_ids = list(Driver.objects.order_by("pk").values_list("pk", flat=True))

    bookings = max(args.records // 10, 1)
    partner_every = 5  # one booking in five comes from the partner that charges per job
    columns, rows = model_rows(
        Booking,
        {
            "reference": "X",
            "source": "website",
            "pickup": "Leeds station",
            "dropoff": "York",
            "pickup_time": start + timedelta(hours=12),
            "fare": Decimal("35.00"),
            "status": "completed",
        },
        {
            "reference": lambda i: f"DTD-B{i:09d}",
            "driver_id": lambda i: driver_ids[i % len(driver_ids)],
            "account_id": lambda i: partner.pk if i % partner_every == 0 else None,
            "source": lambda i: "partner" if i % partner_every == 0 else "website",
        },
        bookings,
    )
    timer.run(f"load {bookings:,} bookings (COPY)", lambda: copy_rows(Booking, columns, rows))
    first_booking = Booking.objects.order_by("pk").values_list("pk", flat=True).first()

    def completion_events():
        for i in range(0, bookings, partner_every):
            at = start + timedelta(seconds=rng.random() * span)
            yield (
                first_booking + i,
                2,
                "booking.completed",
                "on_board",
                "completed",
                "driver",
                "{}",
                at,
            )

    timer.run(
        f"load {bookings // partner_every:,} partner completions (COPY)",
        lambda: copy_rows(
            BookingEvent,
            [
                "booking_id",
                "sequence",
                "type",
                "from_status",
                "to_status",
                "actor",
                "detail",
                "created_at",
            ],
            completion_events(),
        ),
    )

    def payment_records():
        # Drivers differ: one in three takes cards (processor fees), one in four works
        # part-time (about a third of the takings, so often a free week).
        n = len(driver_ids)
        for i in range(args.records):
            booking_offset = i % bookings
            d = booking_offset % n
            at = start + timedelta(seconds=rng.random() * span)
            card = d % 3 == 0 and i % 2 == 0
            refund = i % 50 == 0
            amount = Decimal(rng.randrange(1000, 6000)) / 100
            if d % 4 == 1:
                amount = (amount / 3).quantize(Decimal("0.01"))
            yield (
                first_booking + booking_offset,
                "refund" if refund else "payment",
                (amount / 4).quantize(Decimal("0.01")) if refund else amount,
                "card_to_driver" if card else "cash_to_driver",
                "",
                (amount * Decimal("0.014")).quantize(Decimal("0.01")) if card else 0,
                driver_ids[d],
                at,
                NOW,
            )

    timer.run(
        f"load {args.records:,} payment records (COPY)",
        lambda: copy_rows(
            PaymentRecord,
            [
                "booking_id",
                "kind",
                "amount",
                "method",
                "reference",
                "processor_fee",
                "driver_id",
                "occurred_at",
                "created_at",
            ],
            payment_records(),
        ),
    )

    # Job cards go to half of the drivers, one in three by WhatsApp (free): dispatch
    # records each SMS the provider accepted with billing (SmsUsage), and only those.
    sms_count = args.notifications - args.notifications // 3
    columns, rows = model_rows(
        SmsUsage,
        {"occurred_at": start, "reference": "", "driver_id": driver_ids[0]},
        {
            "driver_id": lambda i: driver_ids[(2 * i) % len(driver_ids)],
            "occurred_at": lambda i: start + timedelta(seconds=(i * 7919) % int(span)),
            "reference": lambda i: f"job-card:{i}",
        },
        sms_count,
    )
    timer.run(
        f"load {sms_count:,} SMS usage rows of {args.notifications:,} job cards (COPY)",
        lambda: copy_rows(SmsUsage, columns, rows),
    )

    from django.db import connection

    with connection.cursor() as cursor:
        timer.run("ANALYZE", lambda: cursor.execute("ANALYZE"))
    return {"bookings": bookings}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--drivers", type=int, default=100_000)
    parser.add_argument("--records", type=int, default=2_000_000)
    parser.add_argument(
        "--notifications",
        type=int,
        default=None,
        help="SMS/WhatsApp log rows (default: records / 4)",
    )
    parser.add_argument("--chunk-size", type=int, default=5000)
    parser.add_argument("--keep", action="store_true", help="keep the benchmark database")
    parser.add_argument(
        "--charge-sample",
        type=int,
        default=-1,
        help="invoices charged against localstripe (default -1: all the week's; 0: none)",
    )
    parser.add_argument(
        "--charge-workers",
        type=int,
        default=2,
        help="Celery worker processes charging (REDIS_URL is their broker)",
    )
    parser.add_argument(
        "--shard-size",
        type=int,
        default=1000,
        help="drivers per localstripe shard (its cost per request grows with its store)",
    )
    parser.add_argument(
        "--localstripe-shards",
        type=int,
        default=0,
        help="localstripe processes (default: charge sample / shard size)",
    )
    parser.add_argument(
        "--setup-processes",
        type=int,
        default=4,
        help="processes adding the sample's customers and cards, shard by shard",
    )
    parser.add_argument(
        "--localstripe-persist",
        action="store_true",
        help="stock localstripe, which pickles its whole store on every write",
    )
    args = parser.parse_args()
    if args.notifications is None:
        args.notifications = args.records // 4

    base_url = os.environ.get("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/postgres")
    if not base_url.startswith("postgres"):
        sys.exit("bench_billing needs PostgreSQL (DATABASE_URL=postgres://...)")
    db_name = f"dtd_bench_billing_{os.getpid()}"
    database_recreate(base_url, db_name)
    os.environ["DATABASE_URL"] = database_url(base_url, db_name)
    os.environ["CELERY_TASK_ALWAYS_EAGER"] = "1"
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.local")
    os.environ.setdefault("LOG_LEVEL", "WARNING")
    stripe_server = None
    if args.charge_sample and not os.environ.get("REDIS_URL"):
        sys.exit("charging runs on Celery workers: set REDIS_URL (e.g. redis://127.0.0.1:6379/8)")
    if args.charge_sample:
        from billing.tests.localstripe import PUBLISHABLE_KEY, SECRET_KEY

        stripe_server = shards_start(args)
        # A driver's customer lives on the shard its id maps to (billing.provider.api_base).
        os.environ["STRIPE_API_SHARDS"] = ",".join(server.base for server in stripe_server)
        os.environ["STRIPE_API_BASE"] = stripe_server[0].base
        os.environ["STRIPE_SECRET_KEY"] = SECRET_KEY
        os.environ["STRIPE_PUBLISHABLE_KEY"] = PUBLISHABLE_KEY
        os.environ["EMAIL_BACKEND"] = "django.core.mail.backends.locmem.EmailBackend"

    import django

    django.setup()
    from django.core.management import call_command

    from billing.models import Invoice
    from billing.services.invoicing import invoices_generate_week
    from billing.services.subscriptions import subscriptions_ensure
    from billing.weeks import week_bounds

    global WEEK_BOUNDS
    WEEK_BOUNDS = week_bounds(WEEK)
    timer = Timer()
    print(f"Benchmark database {db_name}", flush=True)
    try:
        timer.run("migrate", lambda: call_command("migrate", verbosity=0))
        load(args, timer)
        timer.run(
            "subscriptions backfill (one-off)",
            lambda: subscriptions_ensure(now=NOW),
            lambda n: f"{n:,} created",
        )

        def describe(result):
            return (
                f"{result.created_billed:,} invoices, {result.created_free:,} free weeks, "
                f"{result.already_invoiced:,} skipped, £{result.total_billed:,}"
            )

        first = timer.run(
            "invoices_generate_week: first run",
            lambda: invoices_generate_week(week_start=WEEK, now=NOW, chunk_size=args.chunk_size),
            describe,
        )
        second = timer.run(
            "invoices_generate_week: second run",
            lambda: invoices_generate_week(week_start=WEEK, now=NOW, chunk_size=args.chunk_size),
            describe,
        )
        numbered = Invoice.objects.exclude(number=None)
        count = numbered.count()
        lo = numbered.order_by("number").values_list("number", flat=True).first()
        hi = numbered.order_by("-number").values_list("number", flat=True).first()
        gapless = count == 0 or (lo == 1 and hi == count)
        charged = charge(args, timer, stripe_server, billed=count) if stripe_server else None
    finally:
        from django.db import connections

        connections.close_all()
        if not args.keep:
            database_recreate(base_url, db_name, drop_only=True)
        for server in stripe_server or []:
            server.stop()

    print()
    print(
        f"Billing benchmark: {args.drivers:,} drivers, {args.records:,} payment records, "
        f"{args.notifications:,} notifications, week of {WEEK}"
    )
    width = max(len(label) for label, _, _ in timer.rows)
    print(f"| {'phase'.ljust(width)} | seconds | result")
    print(f"|-{'-' * width}-|---------|-------")
    for label, seconds, detail in timer.rows:
        print(f"| {label.ljust(width)} | {seconds:7.2f} | {detail}")
    first_s = next(s for label, s, _ in timer.rows if label.endswith("first run"))
    second_s = next(s for label, s, _ in timer.rows if label.endswith("second run"))
    print()
    print(f"first run  {first_s:6.2f}s  target < 60 s  {'PASS' if first_s < 60 else 'FAIL'}")
    print(
        f"second run {second_s:6.2f}s  target < 10 s, creates nothing  "
        f"{'PASS' if second_s < 10 and second.created == 0 else 'FAIL'}"
    )
    print(f"numbering  1..{hi or 0} for {count:,} invoices  {'gapless' if gapless else 'GAPS'}")
    print(f"drivers with activity: {first.drivers_with_activity:,}")
    if charged:
        print(
            f"charging    {charged['sent']:,} invoices in {charged['seconds']:.2f}s "
            f"({charged['ms_each']:.1f} ms each, {1000 / charged['ms_each']:.1f}/s, "
            f"{args.charge_workers} workers, {charged['shards']} localstripe shards "
            f"{'stock' if args.localstripe_persist else 'in memory'}), second run sent "
            f"{charged['again']}; load average {charged['load'][0]:.1f} before, "
            f"{charged['load'][1]:.1f} after"
        )
        print(
            f"CPU per charge: workers {charged['worker_cpu_ms']:.1f} ms, their PostgreSQL "
            f"{charged['postgres_cpu_ms']:.1f} ms, localstripe {charged['localstripe_cpu_ms']:.1f} ms "
            f"(all shards); set-up: localstripe {charged['setup_localstripe_cpu_ms']:.1f} ms "
            f"per customer"
        )
        print(
            f"peak RSS: each worker process at most {charged['worker_rss_mb']:,.0f} MB, "
            f"each localstripe shard at most {charged['localstripe_rss_mb']:,.0f} MB "
            f"({charged['localstripe_rss_total_mb']:,.0f} MB all shards); bench process "
            f"Python peak during the charge {charged['peak_mb']:.1f} MB"
        )
        if charged["sent"] < count:
            print(
                f"charging all {count:,} billed invoices: EXTRAPOLATED from {charged['sent']:,} "
                f"at the measured rate, {charged['ms_each'] * count / 1000:,.0f}s "
                f"(~{charged['ms_each'] * count / 60000:,.0f} min)"
            )
    print(
        f"peak RSS of this process: {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:,.0f} MB"
    )


def shards_start(args) -> list:
    """``--localstripe-shards`` localstripe servers (each its own process and port),
    started side by side."""
    from concurrent.futures import ThreadPoolExecutor

    from billing.tests.localstripe import LocalStripe

    # All the week's invoices: at most one a driver.
    drivers = args.drivers if args.charge_sample < 0 else min(args.charge_sample, args.drivers)
    count = args.localstripe_shards or max(1, -(-drivers // args.shard_size))
    servers = [LocalStripe(in_memory=not args.localstripe_persist) for _ in range(count)]
    # Threads only wait here: each start polls its server's port.
    with ThreadPoolExecutor(max_workers=8) as pool:
        list(pool.map(LocalStripe.start, servers))
    print(f"{count} localstripe shards started", flush=True)
    return servers


def cards_add(driver_ids: list[int]) -> list[tuple[int, str, str]]:
    """Give each driver a Stripe customer holding a test card, on the driver's shard, with
    the production client: two requests a driver (the card, then the customer created
    with it attached and as its default), the fewest Stripe's API allows, as it has no
    bulk create. Runs in a forked process of the bench (settings already loaded)."""
    from billing.provider import stripe_client

    made = []
    for driver_id in driver_ids:
        client = stripe_client(driver_id=driver_id)
        method = client.v1.payment_methods.create(
            params={
                "type": "card",
                "card": {
                    "number": "4242424242424242",
                    "exp_month": 12,
                    "exp_year": 2034,
                    "cvc": "123",
                },
            }
        )
        customer = client.v1.customers.create(
            params={
                "payment_method": method.id,
                "invoice_settings": {"default_payment_method": method.id},
                "metadata": {"driver_id": str(driver_id)},
            }
        )
        made.append((driver_id, customer.id, method.id))
    return made


def charge(args, timer: Timer, servers: list, *, billed: int) -> dict:
    """Charge the week's invoices (or ``--charge-sample`` of them) as production does:
    ``StripeCollection.collect`` marks them due and queues ``payments_charge_due``, which
    hands them out in chunks of ``CHARGE_CHUNK`` to ``invoices_charge`` tasks, run by
    ``--charge-workers`` real Celery worker processes on Redis against the localstripe
    shards (each charge goes to its driver's shard: ``STRIPE_API_SHARDS``)."""
    import multiprocessing
    import tracemalloc
    from concurrent.futures import ProcessPoolExecutor

    from django.db import connections

    from bench.bench_dispatch_burst import (
        _cpu_seconds,
        cpu_between,
        cpu_used,
        process_stop,
        worker_start,
        worker_wait_ready,
    )
    from billing.collection import StripeCollection
    from billing.models import Invoice, InvoiceStatus, PaymentCustomer, PaymentMethod
    from billing.provider import api_base
    from billing.services.payments import payments_charge_due
    from config.celery import app

    sample = list(
        Invoice.objects.filter(week_start=WEEK, status=InvoiceStatus.DUE)
        .order_by("number")
        .values_list("pk", "driver_id")
    )
    if args.charge_sample >= 0:
        sample = sample[: args.charge_sample]
    server_pids = [server.process.pid for server in servers]

    def set_up_cards():
        # Drivers add cards over weeks, not in the run: here all at once, one batch per
        # shard, --setup-processes batches side by side (each shard serves one at a time).
        by_shard: dict[str, list[int]] = {}
        for _, driver_id in sample:
            by_shard.setdefault(api_base(driver_id=driver_id), []).append(driver_id)
        connections.close_all()  # the forked processes must not share our connection
        context = multiprocessing.get_context("fork")
        with ProcessPoolExecutor(args.setup_processes, mp_context=context) as pool:
            made = [row for rows in pool.map(cards_add, by_shard.values()) for row in rows]
        PaymentCustomer.objects.bulk_create(
            [PaymentCustomer(driver_id=d, customer_id=c) for d, c, _ in made], batch_size=5000
        )
        PaymentMethod.objects.bulk_create(
            [
                PaymentMethod(driver_id=d, provider_id=m, kind="card", last4="4242")
                for d, _, m in made
            ],
            batch_size=5000,
        )
        return len(made)

    setup_cpu_before = _cpu_seconds(server_pids)
    timer.run(
        f"set-up: {len(sample):,} customers with a card on {len(servers)} localstripe shards, "
        f"{args.setup_processes} processes (not the run)",
        set_up_cards,
        lambda n: f"{n:,} customers",
    )
    setup_cpu = cpu_between(setup_cpu_before, _cpu_seconds(server_pids))
    ids = [pk for pk, _ in sample]
    # A whole week is more invoices than one statement's 65,535 parameters: by chunks.
    chunks = [ids[start : start + 20_000] for start in range(0, len(ids), 20_000)]

    def counted(status: str) -> int:
        return sum(Invoice.objects.filter(pk__in=c, status=status).count() for c in chunks)

    # The manual backend made them due; the provider's collect is what the weekly run does.
    assert not Invoice.objects.filter(week_start=WEEK, status=InvoiceStatus.ISSUED).exists()
    for chunk in chunks:
        Invoice.objects.filter(pk__in=chunk).update(status=InvoiceStatus.ISSUED)
    redis_url = os.environ["REDIS_URL"]
    import redis

    redis.Redis.from_url(redis_url).flushdb()  # the bench's own Redis database
    env = {**os.environ, "CELERY_TASK_ALWAYS_EAGER": "0", "CELERY_BROKER_URL": redis_url}
    log = open(f"/tmp/bench_billing_workers_{os.getpid()}.log", "w+")  # noqa: SIM115
    worker = worker_start(env, args.charge_workers, log)
    try:
        worker_wait_ready(app, worker)
        app.conf.task_always_eager = False  # from here the tasks go to the workers
        cpu_before = cpu_used([worker])
        localstripe_before = _cpu_seconds(server_pids)
        load_before = os.getloadavg()
        tracemalloc.start()
        started = time.perf_counter()

        def charge_all():
            # The sample is the week's only issued invoices (asserted above).
            issued = Invoice.objects.filter(week_start=WEEK, status=InvoiceStatus.ISSUED)
            StripeCollection().collect(invoices=issued)
            while counted(InvoiceStatus.DUE):
                time.sleep(1)
            return counted(InvoiceStatus.PAID)

        sent = timer.run(
            f"StripeCollection.collect, then {args.charge_workers} Celery worker processes "
            f"charge {len(ids):,} invoices in chunks",
            charge_all,
            lambda n: f"{n:,} paid",
        )
        seconds = time.perf_counter() - started
        load_after = os.getloadavg()
        cpu_after = cpu_used([worker])
        localstripe_cpu = cpu_between(localstripe_before, _cpu_seconds(server_pids))
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        worker_rss = worker_peak_rss_mb(worker.pid)
        server_rss = [worker_peak_rss_mb(pid) for pid in server_pids]
    finally:
        app.conf.task_always_eager = True
        process_stop(worker)
        log.close()
    again = timer.run("payments_charge_due: second run", lambda: payments_charge_due(), str)
    paid = counted(InvoiceStatus.PAID)
    assert paid == sent == len(ids), (paid, sent, len(ids))
    return {
        "sent": sent,
        "seconds": seconds,
        "ms_each": seconds * 1000 / max(sent, 1),
        "again": again,
        "peak_mb": peak / 1e6,
        "worker_cpu_ms": cpu_between(cpu_before[0], cpu_after[0]) * 1000 / max(sent, 1),
        "postgres_cpu_ms": cpu_between(cpu_before[1], cpu_after[1]) * 1000 / max(sent, 1),
        "worker_rss_mb": worker_rss,
        "shards": len(servers),
        "localstripe_rss_mb": max(server_rss),
        "localstripe_rss_total_mb": sum(server_rss),
        "localstripe_cpu_ms": localstripe_cpu * 1000 / max(sent, 1),
        "setup_localstripe_cpu_ms": setup_cpu * 1000 / max(len(sample), 1),
        "load": (load_before[0], load_after[0]),
    }


def worker_peak_rss_mb(pid: int) -> float:
    """The largest peak RSS (VmHWM) among a process and its children, in MB."""
    from bench.bench_dispatch_burst import _process_tree

    peak = 0
    for each in _process_tree(pid):
        try:
            status = Path(f"/proc/{each}/status").read_text()
        except OSError:
            continue
        for line in status.splitlines():
            if line.startswith("VmHWM:"):
                peak = max(peak, int(line.split()[1]))
    return peak / 1024


WEEK_BOUNDS: tuple[datetime, datetime]

if __name__ == "__main__":
    main()
