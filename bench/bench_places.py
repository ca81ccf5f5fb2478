"""Places benchmark: the offline geocoder against the gold set (issue 15, "Places").

Run: .venv/bin/python bench/bench_places.py
Prints the share of the gold set (pricing/tests/data/uk_places_gold.tsv, coordinates from
a source independent of the gazetteer) resolved within 2 km, the misses, and the lookup
median over those names, uncached. Targets: >= 99 % within 2 km; median < 0.2 ms.
Exits non-zero when a target is missed. Needs no database.
"""

from __future__ import annotations

import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.test")

ROUNDS = 50


def main() -> int:
    import django

    django.setup()
    from pricing.gazetteer import gazetteer_get
    from pricing.geocoding import OfflineGeocoder
    from pricing.tests.gold import HIT_KM, gold_misses, gold_places

    gazetteer_get()
    geocoder = OfflineGeocoder()
    places = gold_places()
    misses = gold_misses(geocoder, places)
    hit_rate = 1 - len(misses) / len(places)

    timings = []
    for _ in range(ROUNDS):
        for gold in places:
            started = time.perf_counter()
            geocoder._geocode(gold.name, worldwide=False)  # the lookup itself, not its cache
            timings.append(time.perf_counter() - started)
    median_ms = statistics.median(timings) * 1000
    p99_ms = sorted(timings)[int(len(timings) * 0.99)] * 1000

    rows = [
        ("gold set names", f"{len(places)}", ">= 200"),
        (
            f"resolved within {HIT_KM:g} km",
            f"{len(places) - len(misses)} ({hit_rate:.1%})",
            ">= 99 %",
        ),
        ("lookup median (uncached)", f"{median_ms:.4f} ms", "< 0.2 ms"),
        ("lookup p99 (uncached)", f"{p99_ms:.4f} ms", ""),
    ]
    width = max(len(r[0]) for r in rows)
    print(f"{'metric':<{width}}  {'result':>14}  target")
    print("-" * (width + 28))
    for name, value, target in rows:
        print(f"{name:<{width}}  {value:>14}  {target}")
    for miss in misses:
        where = f"{miss.km} km away" if miss.km is not None else "not found"
        print(f"  miss: {miss.gold.name} ({miss.gold.kind}) -> {miss.found}, {where}")
    return 0 if hit_rate >= 0.99 and median_ms < 0.2 else 1


if __name__ == "__main__":
    sys.exit(main())
