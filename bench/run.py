"""Run every benchmark and print its table: `make bench` (or `make bench ARGS=--quick`).

Each benchmark is its own script so that it can also be run alone; they need PostgreSQL
and Redis on 127.0.0.1 (the HTTP one also needs wrk: apt-get install -y wrk).
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent

FULL = [
    ("pricing: fare function and geocoder", ["bench_pricing.py"]),
    ("places: the geocoder against the gold set", ["bench_places.py"]),
    ("pricing: estimated road distance against published ones", ["bench_road_factor.py"]),
    ("pricing: calibrated fares, leave-one-out error", ["bench_calibration.py"]),
    ("HTTP: quote and instant booking vs reference view", ["http_bench.py"]),
    (
        "HTTP: where a quote's and an instant booking's milliseconds go (one process)",
        ["bench_request_profile.py"],
    ),
    ("MCP: estimate_fare vs POST /v1/quote under ASGI, and ASGI vs WSGI", ["mcp_bench.py"]),
    ("serving: the production web command against plain WSGI", ["bench_serving.py"]),
    ("load: a busy city's hour (locust)", ["bench_load.py"]),
    ("dispatch: candidate selection", ["bench_dispatch.py"]),
    (
        "dispatch: 100 bookings/s for 60 s, then a 1,000-booking burst (2 workers + dispatcher)",
        ["bench_dispatch_burst.py"],
    ),
    ("dispatch: re-dispatch of 1,000 open bookings without a driver", ["bench_redispatch.py"]),
    ("intake: partner batches", ["bench_intake.py"]),
    (
        "billing: weekly invoicing, and charging the week against localstripe shards",
        ["bench_billing.py"],
    ),
    (
        "privacy: the retention job over 1,000,000 bookings and 10,000,000 positions",
        ["bench_retention.py"],
    ),
    (
        "live trips: 2,000 cars reporting every 5 s, booking.driver_location events",
        ["bench_live_trips.py"],
    ),
    (
        "positions: ingest reports/s per core, writes per report, matching at 100,000 drivers",
        ["bench_positions.py"],
    ),
]
QUICK_ARGS = {
    "bench_positions.py": ["--quick"],
    "bench_live_trips.py": ["--drivers", "500", "--duration", "30", "--max-seconds", "5"],
    "bench_billing.py": ["--drivers", "5000", "--records", "100000", "--charge-sample", "200"],
    "bench_retention.py": ["--bookings", "50000", "--positions", "500000"],
    "http_bench.py": ["--duration", "5"],
    "bench_request_profile.py": ["--requests", "100"],
    "mcp_bench.py": ["--duration", "5", "--rounds", "2"],
    "bench_serving.py": ["--duration", "5", "--rounds", "2"],
    "bench_load.py": ["--users", "40", "--minutes", "1"],
    "bench_dispatch_burst.py": [
        "--bookings",
        "200",
        "--drivers",
        "600",
        "--sustained-seconds",
        "5",
    ],
}


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true", help="smaller sizes, shorter runs")
    parser.add_argument("--only", help="run only benchmarks whose script name contains this")
    args = parser.parse_args()
    failures = 0
    for title, command in FULL:
        script = command[0]
        if args.only and args.only not in script:
            continue
        if not (HERE / script).exists():
            print(f"\n== {title}: {script} not present, skipped")
            continue
        extra = QUICK_ARGS.get(script, []) if args.quick else []
        print(f"\n== {title} ({script} {' '.join(extra)})", flush=True)
        started = time.monotonic()
        result = subprocess.run([sys.executable, str(HERE / script), *command[1:], *extra])
        print(f"-- {script}: exit {result.returncode} in {time.monotonic() - started:.0f}s")
        failures += result.returncode != 0
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
