"""Load: a busy city's hour (bench/locustfile.py) against the production processes.

Prepares a database (PostgreSQL, ``$BENCH_DB`` or ``dtd_bench_load``) with the council
tariffs, an agent key, a partner key, an MCP access token and ``--cars`` drivers with app
tokens; starts what production runs (the Procfile's web with 2 workers, its mcp and ingest
with 1 each, behind the proxy of deploy/Caddyfile; a Celery worker on every queue; the
dispatcher) and drives it through the proxy with locust, headless, for ``--minutes``. Prints one table: per request type the count, throughput, latency
percentiles and failures.

Soak mode (``--soak``, 30 minutes unless ``--minutes`` says otherwise) also samples, every
minute, the resident memory of the web and worker processes and the database connections
in use, and prints them with the growth from the first sample to the last: both should be
flat.

    .venv/bin/python bench/bench_load.py [--users 60] [--minutes 1] [--cars 300] [--soak]
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))

from bench.common import (  # noqa: E402
    CADDY_RUN,
    caddy_environment,
    database_recreate,
    database_url,
    procfile_command,
    procfile_server_arguments,
)
from bench.http_bench import wait_ready  # noqa: E402
from bench.mcp_bench import TOKEN_SCRIPT  # noqa: E402

PG_ADMIN_URL = os.environ.get("BENCH_PG_ADMIN", "postgres://postgres@127.0.0.1:5432/postgres")
DB_NAME = os.environ.get("BENCH_DB", "dtd_bench_load")
PORT = int(os.environ.get("BENCH_LOAD_PORT", "8767"))  # the proxy's
WEB_PORT, MCP_PORT, INGEST_PORT = PORT + 1, PORT + 2, PORT + 3
PYTHON = sys.executable
BIN = Path(PYTHON).parent
HIGH = "100000000/h"

CARS_SCRIPT = """
import json, random
from datetime import timedelta
from django.contrib.auth import get_user_model
from django.utils import timezone
from rest_framework.authtoken.models import Token
from bench.common import driver_vehicle, jitter, online_driver
from drivers.models import Driver, Vehicle
rng = random.Random(25)
now = timezone.now()
expiry = timezone.localdate() + timedelta(days=365)
users = get_user_model().objects.bulk_create(
    [get_user_model()(username=f"car{n}@example.co.uk", password="!") for n in range(%(cars)d)])
tokens = Token.objects.bulk_create([Token(user=u, key=Token.generate_key()) for u in users])
rows, cars = [], []
for n, user in enumerate(users):
    position = jitter(53.7952, -1.5477, 4, rng)
    row = online_driver(n, position=position, base=position, authority="Leeds",
                        radius_km=40, now=now, expiry=expiry)
    row.user = user
    rows.append(row)
    cars.append(position)
drivers = Driver.objects.bulk_create(rows)
Vehicle.objects.bulk_create([driver_vehicle(d, vehicle_class="saloon", seats=4,
                             authority="Leeds", expiry=expiry) for d in drivers])
print(json.dumps([[t.key, lat, lng] for t, (lat, lng) in zip(tokens, cars)]))
"""


def env(**extra: str) -> dict[str, str]:
    values = dict(os.environ)
    values.update(
        DJANGO_SETTINGS_MODULE="bench.settings",
        DATABASE_URL=database_url(PG_ADMIN_URL, DB_NAME),
        REDIS_URL=os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/3"),
        SECRET_KEY="bench-secret-key-not-for-production-" + "x" * 20,
        SITE_URL=f"http://127.0.0.1:{PORT}",
        ALLOWED_HOSTS="127.0.0.1,localhost",
        CELERY_TASK_ALWAYS_EAGER="0",
        NOTIFICATION_BACKEND="console",
        EMAIL_BACKEND="django.core.mail.backends.dummy.EmailBackend",
        # The load's callers are few and fast: limits high enough to measure serving.
        RATELIMIT_QUOTE_V1=HIGH,
        RATELIMIT_LOOKUP=HIGH,
        RATELIMIT_DRIVER=HIGH,
        RATELIMIT_DRIVER_LOCATION=HIGH,
        RATELIMIT_INTAKE=HIGH,
        RATELIMIT_BOOKING=HIGH,
        DISPATCH_OFFER_TIMEOUT_SECONDS="3600",
        DISPATCH_DRIVER_SEEN_WITHIN_SECONDS="3600",
        PYTHONPATH=str(ROOT),
    )
    values.update(extra)
    return values


def manage(*args: str) -> str:
    return subprocess.run(
        [PYTHON, "manage.py", *args], cwd=ROOT, env=env(), check=True, capture_output=True,
        text=True,
    ).stdout  # fmt: skip


def last_json(out: str):
    return json.loads(out.strip().splitlines()[-1])


def prepare(cars: int) -> dict:
    database_recreate(PG_ADMIN_URL, DB_NAME)
    manage("migrate", "--noinput")
    manage("load_tariffs")
    agent = last_json(manage(
        "create_account", "--kind", "agent", "--name", "Load Agent", "--approved",
        "--rate-limit", HIGH,
    ))  # fmt: skip
    partner = last_json(manage(
        "create_account", "--kind", "partner", "--name", "Load Partner", "--approved",
        "--rate-limit", HIGH, "--daily-limit", "100000000",
    ))  # fmt: skip
    return {
        "agent_key": agent["apiKey"],
        "partner_key": partner["apiKey"],
        "mcp_token": last_json(manage("shell", "-c", TOKEN_SCRIPT))["token"],
        "cars": last_json(manage("shell", "-c", CARS_SCRIPT % {"cars": cars})),
    }


def start(command: list[str], log, **extra: str) -> subprocess.Popen:
    return subprocess.Popen(
        command, cwd=ROOT, env=env(LOG_LEVEL="WARNING", **extra), stdout=log,
        stderr=subprocess.STDOUT, start_new_session=True,
    )  # fmt: skip


def stop(process: subprocess.Popen) -> None:
    if process.poll() is None:
        os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)


def rss_mb(process: subprocess.Popen) -> float:
    """Resident memory of a process and all its descendants, MB."""
    parents = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            parents[int(stat.parent.name)] = int(stat.read_text().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError):
            continue
    tree, frontier = {process.pid}, {process.pid}
    while frontier:
        frontier = {pid for pid, ppid in parents.items() if ppid in frontier} - tree
        tree |= frontier
    total = 0
    for pid in tree:
        try:
            for line in Path(f"/proc/{pid}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1])
        except OSError:
            continue
    return total / 1024


def connections() -> int:
    import psycopg

    with psycopg.connect(PG_ADMIN_URL, autocommit=True) as conn:
        return conn.execute(
            "SELECT count(*) FROM pg_stat_activity WHERE datname = %s", (DB_NAME,)
        ).fetchone()[0]


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--users", type=int, default=60)
    parser.add_argument("--minutes", type=float, default=None)
    parser.add_argument("--cars", type=int, default=300)
    parser.add_argument("--soak", action="store_true", help="30 minutes, memory and connections")
    args = parser.parse_args()
    minutes = args.minutes or (30 if args.soak else 1)
    if not shutil.which("caddy"):
        print("the proxy is Caddy: apt-get install -y caddy", file=sys.stderr)
        return 2
    world = prepare(args.cars)
    folder = Path(tempfile.mkdtemp(prefix="taxi-load-"))
    (folder / "world.json").write_text(json.dumps(world))
    log = open(folder / "server.log", "w")  # noqa: SIM115 - read at the end
    gunicorn = [str(BIN / "gunicorn"), "-c", "config/gunicorn.py", "--log-level", "warning"]
    web = start([*gunicorn, *procfile_server_arguments("web"), "-w", "2",
                 "-b", f"127.0.0.1:{WEB_PORT}"], log)  # fmt: skip
    mcp = start([*gunicorn, *procfile_server_arguments("mcp"), "-w", "1",
                 "-b", f"127.0.0.1:{MCP_PORT}"], log)  # fmt: skip
    ingest = start(procfile_command("ingest"), log, INGEST_CONCURRENCY="1",
                   INGEST_PORT=str(INGEST_PORT),
                   PATH=f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}")  # fmt: skip
    proxy = subprocess.Popen(
        CADDY_RUN,
        cwd=ROOT,
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
        env=caddy_environment(folder, PORT, web=[WEB_PORT], mcp=MCP_PORT, ingest=INGEST_PORT),
    )
    worker = start([str(BIN / "celery"), "-A", "config", "worker", "-l", "warning"], log)
    dispatcher = start([PYTHON, "manage.py", "run_dispatcher"], log)
    samples: list[tuple[float, float, float, int]] = []
    try:
        wait_ready(f"http://127.0.0.1:{MCP_PORT}/healthz", timeout=60)
        wait_ready(f"http://127.0.0.1:{PORT}/healthz", timeout=60)
        locust = subprocess.Popen(
            [str(BIN / "locust"), "-f", str(HERE / "locustfile.py"), "--headless",
             "-u", str(args.users), "-r", str(max(1, args.users // 5)),
             "--run-time", f"{int(minutes * 60)}s", "--host", f"http://127.0.0.1:{PORT}",
             "--csv", str(folder / "load"), "--only-summary", "--loglevel", "WARNING"],
            cwd=ROOT, env={**os.environ, "LOAD_WORLD": str(folder / "world.json")},
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )  # fmt: skip
        started = time.monotonic()
        interval = 60 if args.soak else 10
        while locust.poll() is None:
            samples.append((time.monotonic() - started, rss_mb(web), rss_mb(worker), connections()))
            try:
                locust.wait(timeout=interval)
            except subprocess.TimeoutExpired:
                continue
    finally:
        for process in (dispatcher, worker, proxy, ingest, mcp, web):
            stop(process)

    rows = list(csv.DictReader(open(folder / "load_stats.csv")))  # noqa: SIM115
    print(
        f"\nLoad: a busy city's hour, compressed: {args.users} locust users, {args.cars} cars, "
        f"{minutes:g} min; the Procfile's web (2 workers), mcp and ingest (1 each) behind "
        "Caddy (deploy/Caddyfile), one Celery worker, one dispatcher, PostgreSQL and Redis "
        "on this machine"
    )
    print(
        f"{'request':30} {'count':>7} {'req/s':>7} {'p50 ms':>7} {'p95 ms':>7} {'p99 ms':>7} "
        f"{'max ms':>7} {'fail':>5}"
    )
    for row in rows:
        print(
            f"{row['Name']:30} {int(row['Request Count']):7d} {float(row['Requests/s']):7.1f} "
            f"{row['50%']:>7} {row['95%']:>7} {row['99%']:>7} {float(row['Max Response Time']):7.0f} "
            f"{int(row['Failure Count']):5d}"
        )
    failures = folder / "load_failures.csv"
    if failures.exists():
        for row in list(csv.DictReader(open(failures)))[:5]:  # noqa: SIM115
            print(
                f"  failure: {row.get('Name')}: {row.get('Error', '')[:120]} x{row.get('Occurrences')}"
            )
    if samples:
        first, last = samples[0], samples[-1]
        peak = max(samples, key=lambda s: s[1])
        print(
            f"\nmemory (RSS) web {first[1]:.0f} -> {last[1]:.0f} MB (peak {peak[1]:.0f}), worker "
            f"{first[2]:.0f} -> {last[2]:.0f} MB; database connections {first[3]} -> {last[3]} "
            f"(max {max(s[3] for s in samples)}), {len(samples)} samples"
        )
        if args.soak:
            for at, web_mb, worker_mb, conns in samples:
                print(f"  {at / 60:5.1f} min  web {web_mb:6.0f} MB  worker {worker_mb:6.0f} MB  "
                      f"connections {conns}")  # fmt: skip
    total = next((row for row in rows if row["Name"] == "Aggregated"), None)
    return 1 if total is None or int(total["Failure Count"]) > 0 else 0


if __name__ == "__main__":
    sys.exit(main())
