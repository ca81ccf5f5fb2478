"""HTTP benchmarks: /v1/quote and /bookings/instant against the one-row reference view.

Runs the production configuration under gunicorn (2 workers) on PostgreSQL, with rate
limiting on (the benchmark key's own limit is set high enough not to trip), and drives
it with wrk over loopback. Prints one table.

    .venv/bin/python bench/http_bench.py [--duration 10] [--connections 8]

With ``--baseline-tree DIR`` (a checkout of another commit, e.g. main before a change)
it compares two source trees in one run: each tree gets its own database and its own
gunicorn, the rounds alternate between them (ABBA order, so a drift of the machine's
speed falls on both), and it prints both tables and, per endpoint, the ratio of this
tree's throughput to the baseline's measured in the same round. The intake and race
checks are skipped in that mode.

    .venv/bin/python bench/http_bench.py --baseline-tree /work/baseline --duration 10 --rounds 5
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
from dataclasses import dataclass
from pathlib import Path
from statistics import median

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.common import procfile_server_arguments  # noqa: E402

PG_ADMIN_URL = os.environ.get("BENCH_PG_ADMIN", "postgres://postgres@127.0.0.1:5432/postgres")
DB_NAME = os.environ.get("BENCH_DB", "dtd_bench")
PORT = int(os.environ.get("BENCH_PORT", "8765"))
PYTHON = sys.executable


@dataclass(frozen=True)
class Tree:
    """One source tree under test: its gunicorn listens on ``port``, on database ``db``."""

    name: str
    root: Path
    port: int
    db: str

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"


CURRENT = Tree("this tree", ROOT, PORT, DB_NAME)

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


def env(tree: Tree = CURRENT) -> dict[str, str]:
    base = PG_ADMIN_URL.rsplit("/", 1)[0]
    values = dict(os.environ)
    values.update(
        DJANGO_SETTINGS_MODULE="bench.settings",
        DATABASE_URL=f"{base}/{tree.db}",
        REDIS_URL=os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/3"),
        SECRET_KEY="bench-secret-key-not-for-production-" + "x" * 20,
        SITE_URL=tree.base_url,
        ALLOWED_HOSTS="127.0.0.1,localhost",
        CELERY_TASK_ALWAYS_EAGER="0",
        NOTIFICATION_BACKEND="console",
        EMAIL_BACKEND="django.core.mail.backends.dummy.EmailBackend",
        PYTHONPATH=str(tree.root),
    )
    return values


def manage(*args: str, tree: Tree = CURRENT) -> str:
    result = subprocess.run(
        [PYTHON, "manage.py", *args],
        cwd=tree.root,
        env=env(tree),
        check=True,
        capture_output=True,
        text=True,
    )
    return result.stdout


def prepare(tree: Tree = CURRENT) -> str:
    """A fresh database for ``tree``, migrated, with tariffs and an agent key; the key."""
    base = PG_ADMIN_URL
    subprocess.run(["psql", base, "-qc", f"DROP DATABASE IF EXISTS {tree.db}"], check=True)
    subprocess.run(["psql", base, "-qc", f"CREATE DATABASE {tree.db}"], check=True)
    manage("migrate", "--noinput", tree=tree)
    manage("shell", "-c", "from pricing.loaders import tariffs_load; tariffs_load()", tree=tree)
    out = manage(
        "create_account",
        "--kind",
        "agent",
        "--name",
        "Bench Agent",
        "--approved",
        "--rate-limit",
        "100000000/h",
        tree=tree,
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


def server_start(tree: Tree, serve: str = "sync") -> subprocess.Popen:
    """gunicorn with 2 workers: sync workers, or (``serve="production"``) as the Procfile's
    ``web`` line serves (config/gunicorn.py, its worker class and threads; this tree's
    Procfile)."""
    if serve == "production":
        how = ["-c", "config/gunicorn.py", *procfile_server_arguments("web")]
    else:
        how = ["config.wsgi"]
    server = subprocess.Popen(
        [
            PYTHON,
            "-m",
            "gunicorn",
            *how,
            "-w",
            "2",
            "-b",
            f"127.0.0.1:{tree.port}",
            "--env",
            "DJANGO_SETTINGS_MODULE=bench.settings",
            "--log-level",
            "warning",
        ],
        cwd=tree.root,
        env=env(tree),
    )
    try:
        # Generous: on a shared, loaded machine two workers take a while to import.
        wait_ready(f"{tree.base_url}/admin/login/", timeout=120)
    except RuntimeError:
        server_stop(server)  # not left serving (and holding the database) after the bench
        raise
    return server


def server_stop(server: subprocess.Popen) -> None:
    server.send_signal(signal.SIGTERM)
    server.wait(timeout=20)


def wrk_scripts(tree: Tree, key: str, tmp: str) -> dict[str, Path]:
    """One wrk script per target path, carrying ``tree``'s own key."""
    scripts = {}
    for _label, path, body in TARGETS:
        script = Path(tmp) / f"{tree.port}-{abs(hash(path))}.lua"
        script.write_text(LUA % {"body": json.dumps(body), "key": key})
        scripts[path] = script
    return scripts


def warm_up(tree: Tree, scripts: dict[str, Path]) -> None:
    for _label, path, _body in TARGETS:
        subprocess.run(
            ["wrk", "-t1", "-c2", "-d2s", "-s", str(scripts[path]), f"{tree.base_url}{path}"],
            capture_output=True,
            check=True,
        )


def workers_cpu_seconds(master_pid: int) -> float:
    """CPU time (user + system) the gunicorn workers of ``master_pid`` have used so far."""
    tick = os.sysconf("SC_CLK_TCK")
    total = 0
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            # The command name (field 2) may hold spaces: split after its closing bracket.
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue  # a process that ended meanwhile
        if int(fields[1]) == master_pid:  # ppid
            total += int(fields[11]) + int(fields[12])  # utime, stime
    return total / tick


def measure_round(
    tree: Tree, server: subprocess.Popen, scripts: dict[str, Path], args
) -> list[tuple[str, dict]]:
    """Every target once against ``tree``, in table order (the reference first).

    Besides wrk's figures, the web workers' CPU time per request: on a machine shared
    with other work, throughput moves with the neighbours' load, CPU per request much less.
    """
    rows = []
    for label, path, _body in TARGETS:
        cpu_before = workers_cpu_seconds(server.pid)
        out = subprocess.run(
            [
                "wrk",
                "-t2",
                f"-c{args.connections}",
                f"-d{args.duration}s",
                "--latency",
                "-s",
                str(scripts[path]),
                f"{tree.base_url}{path}",
            ],
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        row = parse_wrk(out)
        row["cpu_ms"] = (workers_cpu_seconds(server.pid) - cpu_before) * 1000 / max(row["total"], 1)
        rows.append((label, row))
    return rows


def print_table(title: str, rounds: list[list[tuple[str, dict]]]) -> None:
    """Each endpoint against the reference of its own round; the median of those ratios
    (and of each figure) over the rounds, so one slow minute does not decide."""
    print(f"\n{title}")
    print(
        f"{'endpoint':36} {'req/s':>8} {'vs ref':>7} {'p50 ms':>8} {'p99 ms':>8} {'cpu ms':>7} "
        f"{'non-2xx':>8}   ratio per round"
    )
    for index, (label, _path, _body) in enumerate(TARGETS):
        rows = [round_[index][1] for round_ in rounds]
        ratios = [round_[index][1]["rps"] / round_[0][1]["rps"] for round_ in rounds]
        print(
            f"{label:36} {median([r['rps'] for r in rows]):8.0f} {median(ratios):7.0%} "
            f"{median([r['p50'] for r in rows]):8.1f} {median([r['p99'] for r in rows]):8.1f} "
            f"{median([r['cpu_ms'] for r in rows]):7.2f} "
            f"{sum(r['errors'] for r in rows):8d}   " + " ".join(f"{ratio:.0%}" for ratio in ratios)
        )


def compare(args, baseline: Tree) -> int:
    """Two trees, interleaved round by round; both tables and this tree's ratio to the
    baseline per endpoint (the median of the per-round ratios)."""
    trees = (CURRENT, baseline)
    keys = {tree: prepare(tree) for tree in trees}
    servers: dict[Tree, subprocess.Popen] = {}
    rounds: dict[Tree, list] = {tree: [] for tree in trees}
    try:
        for tree in trees:
            servers[tree] = server_start(tree, args.serve)
        with tempfile.TemporaryDirectory() as tmp:
            scripts = {tree: wrk_scripts(tree, keys[tree], tmp) for tree in trees}
            for tree in trees:
                warm_up(tree, scripts[tree])
            for number in range(args.rounds):
                # ABBA: neither tree always runs first in a round.
                for tree in trees if number % 2 == 0 else reversed(trees):
                    rounds[tree].append(measure_round(tree, servers[tree], scripts[tree], args))
    finally:
        for server in servers.values():
            server_stop(server)

    setup = (
        f"gunicorn 2 {args.serve} workers, PostgreSQL, rate limits on, wrk {args.connections} connections "
        f"x {args.duration}s, {args.rounds} rounds alternating between the trees, medians"
    )
    print_table(f"This tree ({CURRENT.root}): {setup}", rounds[CURRENT])
    print_table(f"Baseline ({baseline.root}): {setup}", rounds[baseline])
    print(f"\nThis tree / baseline, req/s measured in the same round ({args.rounds} rounds)")
    print(f"{'endpoint':36} {'req/s':>7} {'cpu/req':>8}   req/s ratio per round")
    for index, (label, _path, _body) in enumerate(TARGETS):
        pairs = list(zip(rounds[CURRENT], rounds[baseline], strict=True))
        ratios = [ours[index][1]["rps"] / theirs[index][1]["rps"] for ours, theirs in pairs]
        cpu = [ours[index][1]["cpu_ms"] / theirs[index][1]["cpu_ms"] for ours, theirs in pairs]
        print(
            f"{label:36} {median(ratios):7.0%} {median(cpu):8.0%}   "
            + " ".join(f"{r:.0%}" for r in ratios)
        )
    print("goal (issue 12): quote and instant booking at 90% of the baseline or better")
    return 0


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
    parser.add_argument(
        "--baseline-tree",
        type=Path,
        help="another checkout to compare with, round by round (its own database and port)",
    )
    parser.add_argument(
        "--serve",
        choices=["sync", "production"],
        default="sync",
        help="gunicorn sync workers, or the Procfile's web command (gthread)",
    )
    args = parser.parse_args()
    if not shutil.which("wrk"):
        print("wrk is needed: apt-get install -y wrk", file=sys.stderr)
        return 2
    if args.baseline_tree is not None:
        baseline = Tree("baseline", args.baseline_tree.resolve(), PORT + 1, f"{DB_NAME}_baseline")
        return compare(args, baseline)
    key = prepare()
    intake_key = partner_key()
    server = server_start(CURRENT, args.serve)
    # Interleaved rounds: this machine's speed drifts by +-15% over a minute, so each
    # endpoint is compared with the reference measured right before it.
    rounds: list[list[tuple[str, dict]]] = []
    try:
        with tempfile.TemporaryDirectory() as tmp:
            scripts = wrk_scripts(CURRENT, key, tmp)
            warm_up(CURRENT, scripts)
            for _ in range(args.rounds):
                rounds.append(measure_round(CURRENT, server, scripts, args))
            intake = intake_throughput(
                intake_key,
                tmp,
                size=args.intake_batch,
                connections=args.connections,
                duration=args.duration,
            )
        race = concurrent_redemptions(key)
    finally:
        server_stop(server)

    print_table(
        f"HTTP benchmark: gunicorn 2 {args.serve} workers, PostgreSQL, rate limits on, wrk "
        f"{args.connections} connections x {args.duration}s, {args.rounds} interleaved rounds, "
        "medians",
        rounds,
    )
    print("goals (issue 41): quote >= 90% of the reference, instant booking >= 70%")
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
