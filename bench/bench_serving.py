"""Serving: the production web command against plain WSGI, same run (issue 25).

Each way of serving runs as its own gunicorn (2 workers, config/gunicorn.py) on one
database, PostgreSQL and Redis, rate limits on (the bench key's limit set high enough not
to trip). wrk drives ``POST /api/public/v1/quote`` and ``POST /api/public/bookings/instant``
against each in turn, in interleaved rounds (ABBA..., this machine's speed drifts), and the
table gives the medians: req/s, p50, p99 and the ratio to plain WSGI measured in the same
round.

    .venv/bin/python bench/bench_serving.py [--duration 8] [--connections 16] [--rounds 3]

The ways of serving:
- production: the Procfile's ``web``, read from the Procfile (config.wsgi under gunicorn
  gthread; ``/mcp`` goes to the ``mcp`` process behind the proxy, deploy/Caddyfile);
- plain WSGI: config.wsgi under gunicorn gthread (8 threads) and under gunicorn sync;
- the production command before (config.asgi, the one ASGI app, under uvicorn workers,
  Django's requests through its WSGI handler on 8 threads, a2wsgi).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from statistics import median

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from bench import http_bench  # noqa: E402
from bench.common import procfile_server_arguments  # noqa: E402
from bench.http_bench import prepare, server_stop, wait_ready  # noqa: E402
from bench.mcp_bench import wrk  # noqa: E402

ROOT = HERE.parent
PYTHON = sys.executable
BASE_PORT = int(os.environ.get("BENCH_SERVING_PORT", "8755"))
GUNICORN = [PYTHON, "-m", "gunicorn", "-c", "config/gunicorn.py", "--log-level", "warning"]
UVICORN = ["-k", "uvicorn_worker.UvicornWorker", "config.asgi:application"]


# (label, gunicorn arguments after the common ones, extra environment)
PRODUCTION = procfile_server_arguments("web")
WAYS = [
    (f"production: Procfile web ({' '.join(PRODUCTION[1:])})", PRODUCTION, {}),
    ("plain WSGI: gthread x8", ["-k", "gthread", "--threads", "8", "config.wsgi"], {}),
    ("plain WSGI: sync", ["config.wsgi"], {}),
    ("before: ASGI app, Django via WSGI threads", UVICORN, {"ASGI_DJANGO_HANDLER": "wsgi"}),
]
# More thread counts for the production command, e.g. BENCH_SERVING_THREADS=2,8
for threads in filter(None, os.environ.get("BENCH_SERVING_THREADS", "").split(",")):
    WAYS.append(
        (
            f"WSGI gthread x{threads}",
            ["-k", "gthread", "--threads", threads, "config.wsgi"],
            {},
        )
    )
TARGETS = [target for target in http_bench.TARGETS if target[1].startswith("/api/")]


def start(index: int, arguments: list[str], extra: dict[str, str]) -> subprocess.Popen:
    port = BASE_PORT + index
    environment = http_bench.env()
    environment.update(extra, SITE_URL=f"http://127.0.0.1:{port}")
    environment.pop("PROMETHEUS_MULTIPROC_DIR", None)
    server = subprocess.Popen(
        [*GUNICORN, "-w", "2", "-b", f"127.0.0.1:{port}", *arguments],
        cwd=ROOT,
        env=environment,
    )
    try:
        wait_ready(f"http://127.0.0.1:{port}/healthz", timeout=120)
    except RuntimeError:
        server_stop(server)  # not left serving (and holding the database) after the bench
        raise
    return server


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--duration", type=int, default=8)
    parser.add_argument("--connections", type=int, default=16)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    if not shutil.which("wrk"):
        print("wrk is needed: apt-get install -y wrk", file=sys.stderr)
        return 2
    key = prepare()
    servers = []
    results: dict[tuple[int, str], list[dict]] = {}
    try:
        for index, (_label, arguments, extra) in enumerate(WAYS):
            servers.append(start(index, arguments, extra))
        with tempfile.TemporaryDirectory() as tmp:
            scripts = {}
            for _label, path, body in TARGETS:
                script = Path(tmp) / f"{abs(hash(path))}.lua"
                script.write_text(http_bench.LUA % {"body": json.dumps(body), "key": key})
                scripts[path] = script
            order = list(range(len(WAYS)))
            for index in order:  # warm up
                for _label, path, _body in TARGETS:
                    wrk(
                        scripts[path],
                        f"http://127.0.0.1:{BASE_PORT + index}{path}",
                        connections=4,
                        duration=2,
                    )
            for number in range(args.rounds):
                for index in order if number % 2 == 0 else reversed(order):
                    for _label, path, _body in TARGETS:
                        url = f"http://127.0.0.1:{BASE_PORT + index}{path}"
                        row = wrk(
                            scripts[path], url, connections=args.connections, duration=args.duration
                        )
                        results.setdefault((index, path), []).append(row)
    finally:
        for server in servers:
            server_stop(server)

    print(
        f"\nServing: gunicorn 2 workers each, PostgreSQL, Redis, rate limits on, wrk "
        f"{args.connections} connections x {args.duration}s, {args.rounds} interleaved rounds, "
        "medians; 'vs WSGI' = req/s against plain WSGI gthread in the same round"
    )
    reference = 1  # plain WSGI gthread x8
    print(
        f"{'way of serving':56} {'endpoint':32} {'req/s':>7} {'vs WSGI':>8} {'p50 ms':>7} "
        f"{'p99 ms':>7} {'non-2xx':>7}"
    )
    for _label, path, _body in TARGETS:
        for index, (way, _arguments, _extra) in enumerate(WAYS):
            rows = results[(index, path)]
            ratios = [
                row["rps"] / ref["rps"]
                for row, ref in zip(rows, results[(reference, path)], strict=True)
            ]
            print(
                f"{way:56} {path:32} {median(r['rps'] for r in rows):7.0f} "
                f"{median(ratios):8.0%} {median(r['p50'] for r in rows):7.1f} "
                f"{median(r['p99'] for r in rows):7.1f} {sum(r['errors'] for r in rows):7d}"
            )
    print("goal (issue 25): production within 10% of plain WSGI in req/s and p99")
    return 0


if __name__ == "__main__":
    sys.exit(main())
