"""Where each millisecond of a quote and of an instant booking goes (issue 41).

One process, the production configuration (``bench.settings``) on PostgreSQL with Redis,
rate limits on (the key's own limit set high), Django's own WSGI handler: the same code
path as a gunicorn sync worker, without the network. For the reference view (one row
inserted), ``POST /api/public/v1/quote`` and ``POST /api/public/bookings/instant`` it prints,
per request:

- wall and CPU time (``time.process_time``: on a shared machine CPU moves much less than
  wall time with the neighbours' load);
- the queries: how many, their time, and the statements of one request;
- each middleware's own time, in and out (a probe middleware between every two layers,
  ``ProbeMiddleware``; the innermost "handler" row is URL resolution, the view and its
  rendering), and URL resolution alone (``django.urls.resolve``);
- CPU by module (cProfile's own CPU time, grouped: each app of this project, Django by
  subpackage, DRF, psycopg, the rest), scaled to the unprofiled CPU time.

So a regression shows its cause in the run that shows it:

    .venv/bin/python bench/bench_request_profile.py [--requests 300]
    make bench ARGS="--only bench_request_profile"
"""

from __future__ import annotations

import argparse
import cProfile
import io
import json
import os
import pstats
import sys
import time
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from statistics import median

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench import http_bench  # noqa: E402

TREE = http_bench.Tree("this tree", ROOT, 0, os.environ.get("BENCH_PROFILE_DB", "dtd_profile"))

# Timestamps of the probes of the request being served: (probe index, "in"|"out", ns).
_marks: list[tuple[int, str, int]] = []


class ProbeMiddleware:
    """Notes the time as a request passes inward and its response outward. Settings put
    one between every two layers (``probe_stack``); each instance knows its place."""

    count = 0

    def __init__(self, get_response):
        self.get_response = get_response
        self.index = ProbeMiddleware.count
        ProbeMiddleware.count += 1

    def __call__(self, request):
        _marks.append((self.index, "in", time.perf_counter_ns()))
        response = self.get_response(request)
        _marks.append((self.index, "out", time.perf_counter_ns()))
        return response


def probe_stack(middleware: list[str]) -> list[str]:
    probe = f"{__name__}.ProbeMiddleware"
    stack = [probe]
    for name in middleware:
        stack += [name, probe]
    return stack


def layers_ns(middleware: list[str]) -> dict[str, int]:
    """Each layer's own time in the request just served: what it spent on the way in
    (between the probe outside it and the probe inside it) and on the way out."""
    seen = {(index, way): ns for index, way, ns in _marks}
    # Django builds the chain from the inside out, so the outermost probe has the
    # highest index: probe k (from the outside) is index n - k.
    n = len(middleware)
    own = {}
    for k, name in enumerate(middleware):
        outer, inner = n - k, n - k - 1
        if (inner, "in") not in seen:  # the layer answered without calling inward
            own[name] = seen[(outer, "out")] - seen[(outer, "in")]
            continue
        own[name] = (seen[(inner, "in")] - seen[(outer, "in")]) + (
            seen[(outer, "out")] - seen[(inner, "out")]
        )
    if (0, "in") in seen:
        own["handler: URL resolution, the view, rendering"] = seen[(0, "out")] - seen[(0, "in")]
    return own


def module_group(filename: str) -> str:
    path = filename.replace("\\", "/")
    if path.startswith(str(ROOT)) and "/.venv/" not in path and "site-packages" not in path:
        parts = Path(path).relative_to(ROOT).parts
        return f"ours: {parts[0]}"
    if "/site-packages/" in path:
        package = path.split("/site-packages/", 1)[1].split("/")
        if package[0] == "django" and len(package) > 2:
            return f"django.{package[1]}"
        return package[0].removesuffix(".py")
    if filename.startswith("<") or filename == "~":
        return "C functions (json, re, sockets, hashing...)"
    return "stdlib"


@dataclass
class Figures:
    wall_ms: list[float] = field(default_factory=list)
    cpu_ms: list[float] = field(default_factory=list)
    queries: list[int] = field(default_factory=list)
    query_ms: list[float] = field(default_factory=list)
    layers: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    statements: list[str] = field(default_factory=list)
    statuses: set[int] = field(default_factory=set)
    by_module: dict[str, float] = field(default_factory=dict)


def environ(path: str, body: bytes, key: str) -> dict:
    return {
        "REQUEST_METHOD": "POST",
        "PATH_INFO": path,
        "SCRIPT_NAME": "",
        "QUERY_STRING": "",
        "SERVER_NAME": "127.0.0.1",
        "SERVER_PORT": "80",
        "SERVER_PROTOCOL": "HTTP/1.1",
        "REMOTE_ADDR": "127.0.0.1",
        "HTTP_HOST": "127.0.0.1",
        "CONTENT_TYPE": "application/json",
        "CONTENT_LENGTH": str(len(body)),
        "HTTP_X_API_KEY": key,
        "wsgi.input": io.BytesIO(body),
        "wsgi.url_scheme": "http",
        "wsgi.errors": sys.stderr,
        "wsgi.version": (1, 0),
        "wsgi.multithread": False,
        "wsgi.multiprocess": True,
        "wsgi.run_once": False,
    }


def serve(handler, path: str, body: bytes, key: str) -> int:
    statuses = []
    chunks = handler(environ(path, body, key), lambda status, headers: statuses.append(status))
    b"".join(chunks)
    if hasattr(chunks, "close"):
        chunks.close()
    return int(statuses[0].split()[0])


def measure(handler, path: str, body: bytes, key: str, requests: int, middleware) -> Figures:
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    figures = Figures()
    for _ in range(max(requests // 10, 5)):  # warm: imports, compiled queries, caches
        serve(handler, path, body, key)
    for _ in range(requests):
        _marks.clear()
        with CaptureQueriesContext(connection) as queries:
            cpu, wall = time.process_time(), time.perf_counter()
            figures.statuses.add(serve(handler, path, body, key))
            figures.cpu_ms.append((time.process_time() - cpu) * 1000)
            figures.wall_ms.append((time.perf_counter() - wall) * 1000)
        figures.queries.append(len(queries.captured_queries))
        figures.query_ms.append(sum(float(q["time"]) for q in queries.captured_queries) * 1000)
        figures.statements = [q["sql"][:110] for q in queries.captured_queries]
        for name, ns in layers_ns(middleware).items():
            figures.layers[name].append(ns / 1e6)
    # CPU time, not wall time: a wait for the database or Redis is not a module's work.
    profiler = cProfile.Profile(time.process_time)
    profiler.enable()
    for _ in range(requests):
        serve(handler, path, body, key)
    profiler.disable()
    own = defaultdict(float)
    for (filename, _line, _name), row in pstats.Stats(profiler).stats.items():
        own[module_group(filename)] += row[2]  # tottime: the function's own time
    total = sum(own.values()) or 1.0
    cpu = median(figures.cpu_ms)
    figures.by_module = {name: cpu * seconds / total for name, seconds in own.items()}
    return figures


def print_figures(label: str, figures: Figures, resolve_ms: float) -> None:
    print(f"\n== {label}: statuses {sorted(figures.statuses)}")
    print(
        f"per request (median of {len(figures.cpu_ms)}): wall {median(figures.wall_ms):.2f} ms, "
        f"CPU {median(figures.cpu_ms):.2f} ms, {median(figures.queries):.0f} queries taking "
        f"{median(figures.query_ms):.2f} ms; URL resolution alone {resolve_ms:.3f} ms"
    )
    print("middleware, own time (median ms, in + out):")
    for name, values in figures.layers.items():
        print(f"  {median(values):7.3f}  {name}")
    print("CPU by module (cProfile's own CPU time, scaled to the unprofiled CPU; ms per request):")
    for name, ms in sorted(figures.by_module.items(), key=lambda item: -item[1])[:14]:
        print(f"  {ms:7.3f}  {name}")
    print("queries of one request:")
    for sql in figures.statements:
        print(f"  {sql}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--requests", type=int, default=300)
    args = parser.parse_args()
    key = http_bench.prepare(TREE)
    os.environ.update(http_bench.env(TREE))
    import django

    django.setup()
    from django.conf import settings
    from django.core.handlers.wsgi import WSGIHandler
    from django.test.utils import override_settings
    from django.urls import resolve

    middleware = list(settings.MIDDLEWARE)
    ProbeMiddleware.count = 0
    with override_settings(MIDDLEWARE=probe_stack(middleware)):
        handler = WSGIHandler()
    print(
        f"bench_request_profile: {args.requests} requests each, in one process, "
        f"{settings.DATABASES['default']['ENGINE'].rsplit('.', 1)[1]}, "
        f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores"
    )
    for label, path, body in http_bench.TARGETS:
        resolve(path)  # the first call loads every URLconf: not a request's cost
        started = time.perf_counter()
        for _ in range(1000):
            resolve(path)
        resolve_ms = (time.perf_counter() - started) / 1000 * 1000
        figures = measure(handler, path, json.dumps(body).encode(), key, args.requests, middleware)
        print_figures(f"{label} ({path})", figures, resolve_ms)
    return 0


if __name__ == "__main__":
    sys.exit(main())
