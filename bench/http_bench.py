"""HTTP benchmarks: /v1/quote and /bookings/instant against the one-row reference view.

Runs the production configuration under gunicorn (2 workers) on PostgreSQL, with rate
limiting on (the benchmark key's own limit is set high enough not to trip), and drives
it with wrk over loopback. Prints one table.

    .venv/bin/python bench/http_bench.py [--duration 10] [--connections 8]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path
from statistics import median

ROOT = Path(__file__).resolve().parent.parent
PG_ADMIN_URL = os.environ.get("BENCH_PG_ADMIN", "postgres://postgres@127.0.0.1:5432/postgres")
DB_NAME = "dtd_bench"
PORT = int(os.environ.get("BENCH_PORT", "8765"))
PYTHON = sys.executable

LUA = """
wrk.method = "POST"
wrk.body = [[%(body)s]]
wrk.headers["Content-Type"] = "application/json"
wrk.headers["x-api-key"] = "%(key)s"
"""

TARGETS = [
    (
        "reference one-row insert",
        "/bench/reference",
        {"pickup": "Leeds station", "dropoff": "York", "passengers": 2},
    ),
    (
        "POST /api/public/v1/quote",
        "/api/public/v1/quote",
        {"pickup": "Leeds station", "dropoff": "York", "passengers": 2},
    ),
    (
        "POST /api/public/bookings/instant",
        "/api/public/bookings/instant",
        {
            "pickup_address": "Leeds station",
            "dropoff_address": "York",
            "passenger_count": 2,
            "passenger_name": "Bench Passenger",
            "passenger_phone_whatsapp": "+447700900123",
        },
    ),
]


def env() -> dict[str, str]:
    base = PG_ADMIN_URL.rsplit("/", 1)[0]
    values = dict(os.environ)
    values.update(
        DJANGO_SETTINGS_MODULE="bench.settings",
        DATABASE_URL=f"{base}/{DB_NAME}",
        REDIS_URL=os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/3"),
        SECRET_KEY="bench-secret-key-not-for-production-" + "x" * 20,
        SITE_URL=f"http://127.0.0.1:{PORT}",
        ALLOWED_HOSTS="127.0.0.1,localhost",
        CELERY_TASK_ALWAYS_EAGER="0",
        NOTIFICATION_BACKEND="console",
        EMAIL_BACKEND="django.core.mail.backends.dummy.EmailBackend",
        PYTHONPATH=str(ROOT),
    )
    return values


def manage(*args: str) -> str:
    result = subprocess.run(
        [PYTHON, "manage.py", *args],
        cwd=ROOT,
        env=env(),
        check=True,
        capture_output=True,
        text=True,
    )
    return result.stdout


def prepare() -> str:
    base = PG_ADMIN_URL
    subprocess.run(["psql", base, "-qc", f"DROP DATABASE IF EXISTS {DB_NAME}"], check=True)
    subprocess.run(["psql", base, "-qc", f"CREATE DATABASE {DB_NAME}"], check=True)
    manage("migrate", "--noinput")
    manage("shell", "-c", "from pricing.loaders import tariffs_load; tariffs_load()")
    out = manage(
        "create_account",
        "--kind",
        "agent",
        "--name",
        "Bench Agent",
        "--approved",
        "--rate-limit",
        "100000000/h",
    )
    return json.loads(out.strip().splitlines()[-1])["apiKey"]


def partner_key() -> str:
    out = manage(
        "create_account",
        "--kind",
        "partner",
        "--name",
        "Bench Partner",
        "--approved",
        "--rate-limit",
        "100000000/h",
        "--daily-limit",
        "100000000",
    )
    return json.loads(out.strip().splitlines()[-1])["apiKey"]


# Each wrk thread sends batches of new jobs with its own jobRef prefix and a counter, so
# every job is new (no 'unchanged' shortcuts): sustained intake with concurrent senders.
INTAKE_LUA = """
local counter = 0
local size = %(size)d
local threads = 0
function setup(thread)
    -- Runs in the main state: gives each thread's state its own global 'prefix'.
    threads = threads + 1
    thread:set("prefix", string.format("T%%d-%%d", os.time(), threads))
end
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.headers["x-api-key"] = "%(key)s"
function request()
    counter = counter + 1
    local jobs = {}
    for i = 1, size do
        jobs[i] = string.format(
            '{"jobRef":"%%s-%%d-%%d","pickup":"Leeds station","dropoff":"York",' ..
            '"pickupTime":"%(pickup_time)s","passengers":2,"fare":42.5,' ..
            '"passengerName":"Bench Passenger","passengerPhone":"+447911123456"}',
            prefix, counter, i)
    end
    return wrk.format(nil, nil, nil, "[" .. table.concat(jobs, ",") .. "]")
end
"""


def intake_throughput(key: str, tmp: str, *, size: int, connections: int, duration: int) -> dict:
    from datetime import UTC, datetime, timedelta

    pickup_time = (datetime.now(UTC) + timedelta(days=2)).strftime("%Y-%m-%dT%H:%M:%SZ")
    script = Path(tmp) / "intake.lua"
    script.write_text(INTAKE_LUA % {"size": size, "key": key, "pickup_time": pickup_time})
    out = subprocess.run(
        [
            "wrk",
            "-t2",
            f"-c{connections}",
            f"-d{duration}s",
            "--latency",
            "-s",
            str(script),
            f"http://127.0.0.1:{PORT}/api/public/v1/jobs",
        ],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    row = parse_wrk(out)
    row["jobs_per_s"] = row["rps"] * size
    return row


def wait_ready(url: str, timeout: float = 30) -> None:
    deadline = time.time() + timeout
    while time.time() < deadline:
        try:
            urllib.request.urlopen(url, timeout=1)  # noqa: S310
            return
        except Exception:  # noqa: BLE001
            time.sleep(0.3)
    raise RuntimeError("server did not start")


def parse_wrk(output: str) -> dict[str, float]:
    def ms(text: str) -> float:
        value, unit = re.match(r"([\d.]+)(us|ms|s|m)", text).groups()
        return float(value) * {"us": 0.001, "ms": 1, "s": 1000, "m": 60000}[unit]

    rps = float(re.search(r"Requests/sec:\s+([\d.]+)", output).group(1))
    p50 = ms(re.search(r"^\s+50%\s+(\S+)", output, re.M).group(1))
    p99 = ms(re.search(r"^\s+99%\s+(\S+)", output, re.M).group(1))
    non2xx = re.search(r"Non-2xx or 3xx responses:\s+(\d+)", output)
    total = int(re.search(r"(\d+) requests in", output).group(1))
    return {
        "rps": rps,
        "p50": p50,
        "p99": p99,
        "errors": int(non2xx.group(1)) if non2xx else 0,
        "total": total,
    }


def concurrent_redemptions(key: str, count: int = 50) -> dict[str, object]:
    """Redeem one quote from ``count`` threads at the same instant over HTTP."""
    import threading

    base = f"http://127.0.0.1:{PORT}"

    def post(path: str, body: dict) -> tuple[int, dict]:
        request = urllib.request.Request(  # noqa: S310
            base + path,
            data=json.dumps(body).encode(),
            method="POST",
            headers={"Content-Type": "application/json", "x-api-key": key},
        )
        try:
            with urllib.request.urlopen(request, timeout=30) as response:  # noqa: S310
                return response.status, json.loads(response.read())
        except urllib.error.HTTPError as error:
            return error.code, json.loads(error.read() or b"{}")

    _, quote = post("/api/public/v1/quote", {"pickup": "Leeds station", "dropoff": "York"})
    redeem = {
        "quote_id": quote["quote_id"],
        "passenger_name": "Race Passenger",
        "passenger_phone_whatsapp": "+447911123456",
        "payment_method": "cash_to_driver",
        "passenger_email": "race.passenger@example.co.uk",
    }
    barrier = threading.Barrier(count)
    results: list[tuple[int, dict]] = []

    def worker() -> None:
        barrier.wait()
        results.append(post("/api/public/bookings/create", redeem))

    threads = [threading.Thread(target=worker) for _ in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    rows = subprocess.run(
        [
            "psql",
            env()["DATABASE_URL"],
            "-tAc",
            f"SELECT count(*) FROM bookings_booking WHERE quote_id = '{quote['quote_id']}'",
        ],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    statuses = sorted({status for status, _ in results})
    references = {body.get("booking_reference") for _, body in results}
    return {
        "bookings": int(rows),
        "statuses": statuses,
        "references": len(references),
        "server_errors": sum(status >= 500 for status, _ in results),
    }


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--duration", type=int, default=10)
    parser.add_argument("--connections", type=int, default=8)
    parser.add_argument(
        "--intake-batch", type=int, default=100, help="jobs per batch in the sustained intake run"
    )
    parser.add_argument(
        "--rounds",
        type=int,
        default=3,
        help="measure every endpoint this many times, interleaved; report the medians",
    )
    args = parser.parse_args()
    if not shutil.which("wrk"):
        print("wrk is needed: apt-get install -y wrk", file=sys.stderr)
        return 2
    key = prepare()
    intake_key = partner_key()
    server = subprocess.Popen(
        [
            PYTHON,
            "-m",
            "gunicorn",
            "config.wsgi",
            "-w",
            "2",
            "-b",
            f"127.0.0.1:{PORT}",
            "--env",
            "DJANGO_SETTINGS_MODULE=bench.settings",
            "--log-level",
            "warning",
        ],
        cwd=ROOT,
        env=env(),
    )
    # Interleaved rounds: this machine's speed drifts by +-15% over a minute, so each
    # endpoint is compared with the reference measured right before it.
    rounds: list[list[tuple[str, dict]]] = []
    try:
        wait_ready(f"http://127.0.0.1:{PORT}/admin/login/")
        with tempfile.TemporaryDirectory() as tmp:
            for _label, path, body in TARGETS:
                script = Path(tmp) / f"{abs(hash(path))}.lua"
                script.write_text(LUA % {"body": json.dumps(body), "key": key})
                subprocess.run(
                    [
                        "wrk",
                        "-t1",
                        "-c2",
                        "-d2s",
                        "-s",
                        str(script),
                        f"http://127.0.0.1:{PORT}{path}",
                    ],
                    capture_output=True,
                    check=True,
                )  # warm-up
            for _ in range(args.rounds):
                rows = []
                for label, path, _body in TARGETS:
                    script = Path(tmp) / f"{abs(hash(path))}.lua"
                    url = f"http://127.0.0.1:{PORT}{path}"
                    out = subprocess.run(
                        [
                            "wrk",
                            "-t2",
                            f"-c{args.connections}",
                            f"-d{args.duration}s",
                            "--latency",
                            "-s",
                            str(script),
                            url,
                        ],
                        capture_output=True,
                        text=True,
                        check=True,
                    ).stdout
                    rows.append((label, parse_wrk(out)))
                rounds.append(rows)
            intake = intake_throughput(
                intake_key,
                tmp,
                size=args.intake_batch,
                connections=args.connections,
                duration=args.duration,
            )
        race = concurrent_redemptions(key)
    finally:
        server.send_signal(signal.SIGTERM)
        server.wait(timeout=20)

    # Each endpoint against the reference of its own round; the median of those ratios
    # (and of each figure) over the rounds, so one slow minute does not decide.
    print(
        f"\nHTTP benchmark: gunicorn 2 workers, PostgreSQL, rate limits on, wrk "
        f"{args.connections} connections x {args.duration}s, {args.rounds} interleaved rounds, "
        "medians"
    )
    print(
        f"{'endpoint':36} {'req/s':>8} {'vs ref':>7} {'p50 ms':>8} {'p99 ms':>8} {'non-2xx':>8}"
        "   ratio per round"
    )
    for index, (label, _path, _body) in enumerate(TARGETS):
        rows = [round_[index][1] for round_ in rounds]
        ratios = [round_[index][1]["rps"] / round_[0][1]["rps"] for round_ in rounds]
        print(
            f"{label:36} {median([r['rps'] for r in rows]):8.0f} {median(ratios):7.0%} "
            f"{median([r['p50'] for r in rows]):8.1f} {median([r['p99'] for r in rows]):8.1f} "
            f"{sum(r['errors'] for r in rows):8d}   " + " ".join(f"{ratio:.0%}" for ratio in ratios)
        )
    print("targets: quote >= 70% of reference and p99 < 50 ms; instant >= 50% and p99 < 100 ms")
    print(
        f"\nPOST /api/public/v1/jobs, {args.connections} concurrent senders, batches of "
        f"{args.intake_batch} new "
        f"jobs: {intake['jobs_per_s']:.0f} jobs/s, p50 {intake['p50']:.0f} ms, p99 "
        f"{intake['p99']:.0f} ms per batch, {intake['errors']} non-2xx (target: 1,000 jobs/s)"
    )
    verdict = "PASS" if race["bookings"] == 1 and race["server_errors"] == 0 else "FAIL"
    print(
        f"\n50 concurrent redemptions of one quote: {race['bookings']} booking(s), statuses "
        f"{race['statuses']}, {race['references']} distinct reference(s), "
        f"{race['server_errors']} 5xx: {verdict}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
