"""MCP benchmark: an authenticated ``estimate_fare`` against ``POST /v1/quote`` under the
same ASGI server, and ``POST /v1/quote`` under ASGI against WSGI, in one run.

Two servers run side by side on PostgreSQL and Redis, rate limits on (the bench caller's
limits are set high enough not to trip): the one ASGI app (``config.asgi``) under gunicorn
with 2 uvicorn workers, and the WSGI app under gunicorn with 2 sync workers. wrk drives
one target at a time over loopback, in interleaved rounds (this machine's speed drifts);
the table gives medians, with each server's workers' CPU per request (which moves much less
with the neighbours' load than req/s does). The MCP calls carry an OAuth access token (scope quotes bookings,
bound to /mcp) and are stateless JSON-RPC ``tools/call`` POSTs, in both protocol modes.

    .venv/bin/python bench/mcp_bench.py [--duration 10] [--connections 8] [--rounds 3]

``--profile N`` instead calls each target N times in one process, through the same ASGI
app without the network (the lifespan run, as under uvicorn), and prints per call the
wall and CPU time (``time.process_time``: every thread of the process), the CPU of the
event loop's thread apart from the worker threads' (the loop is what every request of a
worker process shares: work on it delays all of them), and the queries. So a regression
of the MCP path shows where it went (issue 41):

    .venv/bin/python bench/mcp_bench.py --profile 300
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from statistics import median

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from bench.common import database_recreate, database_url  # noqa: E402
from bench.http_bench import parse_wrk, wait_ready, workers_cpu_seconds  # noqa: E402

ROOT = HERE.parent
PG_ADMIN_URL = os.environ.get("BENCH_PG_ADMIN", "postgres://postgres@127.0.0.1:5432/postgres")
# Its own database name per run when several people bench one PostgreSQL server.
DB_NAME = os.environ.get("BENCH_MCP_DB", "dtd_bench_mcp")
ASGI_PORT = int(os.environ.get("BENCH_PORT", "8775"))
WSGI_PORT = ASGI_PORT + 1
PYTHON = sys.executable
JOURNEY = {"pickup": "Leeds station", "dropoff": "York", "passengers": 2}

LUA = """
wrk.method = "POST"
wrk.body = [[%(body)s]]
%(headers)s
"""

TOKEN_SCRIPT = """
import datetime as dt, json, secrets
from django.conf import settings
from django.utils import timezone
from oauth2_provider.models import AccessToken, Application, set_token_value
from agents.services import passenger_user_get_or_create
user = passenger_user_get_or_create(email="bench.passenger@example.co.uk")
app = Application.objects.create(name="Bench Agent", client_type="public",
    authorization_grant_type="authorization-code", redirect_uris="http://127.0.0.1/cb")
raw = secrets.token_urlsafe(32)
token = AccessToken(user=user, application=app, scope="quotes bookings",
    resource=[settings.SITE_URL + "/mcp"], expires=timezone.now() + dt.timedelta(days=1))
set_token_value(token, raw)
token.save()
print(json.dumps({"token": raw}))
"""


def env(**extra: str) -> dict[str, str]:
    values = dict(os.environ)
    values.update(
        DJANGO_SETTINGS_MODULE="bench.settings",
        DATABASE_URL=database_url(PG_ADMIN_URL, DB_NAME),
        REDIS_URL=os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/3"),
        SECRET_KEY="bench-secret-key-not-for-production-" + "x" * 20,
        SITE_URL=f"http://127.0.0.1:{ASGI_PORT}",
        ALLOWED_HOSTS="127.0.0.1,localhost",
        CELERY_TASK_ALWAYS_EAGER="0",
        NOTIFICATION_BACKEND="console",
        EMAIL_BACKEND="django.core.mail.backends.dummy.EmailBackend",
        # The agent is counted per client and passenger under the quote limit: high enough
        # here that the run measures serving, not refusing.
        RATELIMIT_QUOTE_V1="100000000/h",
        PYTHONPATH=str(ROOT),
    )
    values.update(extra)
    return values


def manage(*args: str) -> str:
    return subprocess.run(
        [PYTHON, "manage.py", *args],
        cwd=ROOT,
        env=env(),
        check=True,
        capture_output=True,
        text=True,
    ).stdout


def prepare() -> tuple[str, str]:
    database_recreate(PG_ADMIN_URL, DB_NAME)
    manage("migrate", "--noinput")
    manage("shell", "-c", "from pricing.loaders import tariffs_load; tariffs_load()")
    out = manage(
        "create_account", "--kind", "agent", "--name", "Bench Key", "--approved",
        "--rate-limit", "100000000/h",
    )  # fmt: skip
    key = json.loads(out.strip().splitlines()[-1])["apiKey"]
    token = json.loads(manage("shell", "-c", TOKEN_SCRIPT).strip().splitlines()[-1])["token"]
    return key, token


def tool_call(mode: str) -> dict:
    params: dict = {"name": "estimate_fare", "arguments": JOURNEY}
    if mode == "2026-07-28":
        params["_meta"] = {
            "io.modelcontextprotocol/protocolVersion": mode,
            "io.modelcontextprotocol/clientCapabilities": {},
        }
    return {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params}


def targets(key: str, token: str) -> list[tuple[str, int, str, dict, dict]]:
    quote_headers = {"Content-Type": "application/json", "x-api-key": key}

    def mcp_headers(mode: str) -> dict:
        headers = {
            "Content-Type": "application/json",
            "Accept": "application/json, text/event-stream",
            "Authorization": f"Bearer {token}",
            "MCP-Protocol-Version": mode,
        }
        if mode == "2026-07-28":  # the routing headers of the stateless revision
            headers.update({"Mcp-Method": "tools/call", "Mcp-Name": "estimate_fare"})
        return headers

    return [
        ("POST /v1/quote, WSGI (gunicorn sync)", WSGI_PORT, "/api/public/v1/quote", JOURNEY, quote_headers),
        ("POST /v1/quote, ASGI (uvicorn)", ASGI_PORT, "/api/public/v1/quote", JOURNEY, quote_headers),
        ("MCP estimate_fare 2025-11-25", ASGI_PORT, "/mcp", tool_call("2025-11-25"), mcp_headers("2025-11-25")),
        ("MCP estimate_fare 2026-07-28", ASGI_PORT, "/mcp", tool_call("2026-07-28"), mcp_headers("2026-07-28")),
    ]  # fmt: skip


# --- --profile: one process, no network ---------------------------------------------


def _asgi_call(application, path: str, body: dict, headers: dict):
    """One POST through the ASGI app, as uvicorn would deliver it; (status, body)."""
    raw_body = json.dumps(body).encode()
    raw_headers = [(k.lower().encode(), v.encode()) for k, v in headers.items()]
    raw_headers += [
        (b"content-length", str(len(raw_body)).encode()),
        (b"host", f"127.0.0.1:{ASGI_PORT}".encode()),
    ]
    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": "POST",
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "query_string": b"",
        "root_path": "",
        "headers": raw_headers,
        "client": ("127.0.0.1", 50000),
        "server": ("127.0.0.1", ASGI_PORT),
    }

    async def run():
        answered = asyncio.Event()
        pending = [{"type": "http.request", "body": raw_body, "more_body": False}]
        out = {"status": 0, "body": b""}

        async def receive():
            if pending:
                return pending.pop()
            await answered.wait()
            return {"type": "http.disconnect"}

        async def send(message):
            if message["type"] == "http.response.start":
                out["status"] = message["status"]
            elif message["type"] == "http.response.body":
                out["body"] += message.get("body", b"")
                if not message.get("more_body"):
                    answered.set()

        await application(scope, receive, send)
        return out["status"], out["body"]

    return run()


class _Lifespan:
    """The ASGI lifespan of the app (the MCP session manager runs in it)."""

    def __init__(self, application):
        self.application = application

    async def __aenter__(self):
        self.inbox: asyncio.Queue = asyncio.Queue()
        self.outbox: asyncio.Queue = asyncio.Queue()
        await self.inbox.put({"type": "lifespan.startup"})
        self.task = asyncio.create_task(
            self.application({"type": "lifespan"}, self.inbox.get, self.outbox.put)
        )
        started = await self.outbox.get()
        if started["type"] != "lifespan.startup.complete":
            raise RuntimeError(started)

    async def __aexit__(self, *exc):
        await self.inbox.put({"type": "lifespan.shutdown"})
        await self.task


def _threads_cpu() -> tuple[float, float]:
    """CPU seconds so far of the event loop's thread (this one) and of all the others."""
    loop, others = time.thread_time(), 0.0
    for thread in threading.enumerate():
        if thread is not threading.current_thread() and thread.ident is not None:
            try:
                others += time.clock_gettime(time.pthread_getcpuclockid(thread.ident))
            except OSError:
                continue  # a thread that ended meanwhile
    return loop, others


def _profile_one(index: int, calls: int, key: str, token: str) -> dict:
    """In this process: ``calls`` calls of target ``index``, after 20 to warm up."""
    os.environ.update(env(DATABASE_POOL="1"))
    import django

    django.setup()
    from django.db.backends.signals import connection_created

    queries = [0]

    def count(execute, sql, params, many, context):
        queries[0] += 1
        return execute(sql, params, many, context)

    def wrap(sender, connection, **kwargs):
        if count not in connection.execute_wrappers:
            connection.execute_wrappers.append(count)

    connection_created.connect(wrap)
    from config.asgi import application

    label, _port, path, body, headers = targets(key, token)[index]

    async def run() -> dict:
        async with _Lifespan(application):
            for _ in range(20):
                status, answer = await _asgi_call(application, path, body, headers)
            if status != 200 or b'"isError":true' in answer:
                raise RuntimeError(f"{label}: {status} {answer[:500]!r}")
            queries[0] = 0
            wall, cpu, threads = time.perf_counter(), time.process_time(), _threads_cpu()
            for _ in range(calls):
                await _asgi_call(application, path, body, headers)
            loop_after, others_after = _threads_cpu()
            return {
                "wall": (time.perf_counter() - wall) / calls,
                "cpu": (time.process_time() - cpu) / calls,
                "loop": (loop_after - threads[0]) / calls,
                "threads": (others_after - threads[1]) / calls,
                "queries": queries[0] / calls,
            }

    return asyncio.run(run())


def profile(calls: int) -> int:
    key, token = prepare()
    plan = targets(key, token)[1:]
    results = {}
    for index, (label, *_rest) in enumerate(plan, start=1):
        out = subprocess.run(
            [PYTHON, __file__, "--profile-target", str(index), "--profile", str(calls)],
            cwd=ROOT,
            env=env(BENCH_MCP_KEY=key, BENCH_MCP_TOKEN=token),
            check=True,
            capture_output=True,
            text=True,
        ).stdout
        results[label] = json.loads(out.strip().splitlines()[-1])
    print(f"\nOne process, {calls} calls each, the ASGI app in-process (pool on), per call:")
    print(
        f"{'target':36} {'wall ms':>8} {'CPU ms':>8} {'event loop':>11} {'threads':>8} "
        f"{'queries':>8}"
    )
    for label, row in results.items():
        print(
            f"{label:36} {row['wall'] * 1000:8.2f} {row['cpu'] * 1000:8.2f} "
            f"{row['loop'] * 1000:11.2f} {row['threads'] * 1000:8.2f} {row['queries']:8.1f}"
        )
    print(
        "CPU ms: the whole process; event loop: its thread's CPU, which every request of a "
        "worker shares; threads: the worker threads' (the use case, Django's handler)"
    )
    return 0


def wrk(script: Path, url: str, *, connections: int, duration: int) -> dict:
    out = subprocess.run(
        ["wrk", "-t2", f"-c{connections}", f"-d{duration}s", "--latency", "-s", str(script), url],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return parse_wrk(out)


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--duration", type=int, default=10)
    parser.add_argument("--connections", type=int, default=8)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument(
        "--asgi-pool",
        choices=["0", "1"],
        default="1",
        help="DATABASE_POOL for the ASGI server",
    )
    parser.add_argument("--profile", type=int, default=0, help="calls per target, in-process")
    parser.add_argument("--profile-target", type=int, default=0, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.profile_target:
        key, token = os.environ["BENCH_MCP_KEY"], os.environ["BENCH_MCP_TOKEN"]
        print(json.dumps(_profile_one(args.profile_target, args.profile, key, token)))
        return 0
    if args.profile:
        return profile(args.profile)
    if not shutil.which("wrk"):
        print("wrk is needed: apt-get install -y wrk", file=sys.stderr)
        return 2
    key, token = prepare()
    gunicorn = [PYTHON, "-m", "gunicorn", "-w", str(args.workers), "--log-level", "warning"]
    servers = [
        subprocess.Popen(
            [*gunicorn, "-k", "uvicorn_worker.UvicornWorker", "-b", f"127.0.0.1:{ASGI_PORT}",
             "config.asgi:application"],
            cwd=ROOT, env=env(DATABASE_POOL=args.asgi_pool),
        ),
        subprocess.Popen(
            [*gunicorn, "-b", f"127.0.0.1:{WSGI_PORT}", "config.wsgi"], cwd=ROOT, env=env()
        ),
    ]  # fmt: skip
    plan = targets(key, token)
    results: dict[str, list[dict]] = {label: [] for label, *_ in plan}
    try:
        for port in (ASGI_PORT, WSGI_PORT):
            # Generous: on a shared, loaded machine the workers take a while to import.
            wait_ready(f"http://127.0.0.1:{port}/admin/login/", timeout=120)
        with tempfile.TemporaryDirectory() as tmp:
            scripts = []
            for index, (_label, port, path, body, headers) in enumerate(plan):
                script = Path(tmp) / f"t{index}.lua"
                lines = "\n".join(f'wrk.headers["{k}"] = "{v}"' for k, v in headers.items())
                script.write_text(LUA % {"body": json.dumps(body), "headers": lines})
                scripts.append((script, f"http://127.0.0.1:{port}{path}"))
                wrk(script, scripts[-1][1], connections=2, duration=2)  # warm-up
            masters = {ASGI_PORT: servers[0].pid, WSGI_PORT: servers[1].pid}
            for _ in range(args.rounds):
                for (label, port, *_), (script, url) in zip(plan, scripts, strict=True):
                    # The workers' CPU per request moves much less with the neighbours'
                    # load than throughput does.
                    spent = workers_cpu_seconds(masters[port])
                    row = wrk(script, url, connections=args.connections, duration=args.duration)
                    spent = workers_cpu_seconds(masters[port]) - spent
                    row["cpu_ms"] = spent * 1000 / max(row["total"], 1)
                    results[label].append(row)
    finally:
        for server in servers:
            server.send_signal(signal.SIGTERM)
        for server in servers:
            server.wait(timeout=20)

    print(
        f"\nMCP benchmark: gunicorn {args.workers} workers each, PostgreSQL (connection pool under "
        f"ASGI: {'on' if args.asgi_pool == '1' else 'off'}), Redis, rate limits on, wrk "
        f"{args.connections} connections x {args.duration}s, {args.rounds} interleaved rounds, "
        "medians"
    )
    print(
        f"{'target':36} {'req/s':>8} {'vs ASGI quote':>14} {'rounds':>12} {'CPU ms/req':>11} "
        f"{'p50 ms':>8} {'p99 ms':>8} {'non-2xx':>8}"
    )
    asgi_quote = plan[1][0]
    for label, *_ in plan:
        rows = results[label]
        ratios = [r["rps"] / q["rps"] for r, q in zip(rows, results[asgi_quote], strict=True)]
        spread = f"{min(ratios):.0%}-{max(ratios):.0%}"
        print(
            f"{label:36} {median(r['rps'] for r in rows):8.0f} {median(ratios):14.0%} "
            f"{spread:>12} {median(r['cpu_ms'] for r in rows):11.2f} "
            f"{median(r['p50'] for r in rows):8.1f} {median(r['p99'] for r in rows):8.1f} "
            f"{sum(r['errors'] for r in rows):8d}"
        )
    print("CPU ms/req: user + system time of that server's gunicorn workers per request")
    print(
        "goal (issue 41): MCP estimate_fare at least as fast as POST /v1/quote on the same server"
    )
    errors = sum(r["errors"] for rows in results.values() for r in rows)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
