"""Places benchmark: the offline geocoder against its gold sets (issues 15 and 22).

Run: .venv/bin/python bench/bench_places.py   (or: make bench ARGS="--only places")
Prints, for each gold set, the share resolved within its distance, the misses, and the
lookup median over those names, uncached:

- places (pricing/tests/data/uk_places_gold.tsv, issue 15): towns, airports, stations,
  shared names; >= 99 % within 2 km;
- typed (uk_postcodes_gold.tsv and uk_names_gold.tsv, issue 22): full postcodes and
  outward codes, the names people use for termini, terminals and stations; >= 98 %
  within 3 km; lookup median < 0.2 ms with the postcode data loaded.

Also the process memory the shipped postcode districts and sectors cost (Python's
allocations for them, and the resident set before and after loading them). Every
coordinate of the gold sets comes from a source independent of the shipped data (their
headers name it). Exits non-zero when a target is missed. Needs no database.
"""

from __future__ import annotations

import gc
import os
import resource
import statistics
import sys
import time
import tracemalloc
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.test")

ROUNDS = 50


def _rss_mb() -> float:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * resource.getpagesize() / 1e6


def _median_ms(geocoder, names: list[str]) -> tuple[float, float]:
    timings = []
    for _ in range(ROUNDS):
        for name in names:
            started = time.perf_counter()
            geocoder._geocode(name, worldwide=False)  # the lookup itself, not its cache
            timings.append(time.perf_counter() - started)
    timings.sort()
    return statistics.median(timings) * 1000, timings[int(len(timings) * 0.99)] * 1000


def main() -> int:
    import django

    django.setup()
    from pricing.postcodes import postcode_areas_load

    # What the postcode districts and sectors cost a process, measured alone.
    gc.collect()
    before = _rss_mb()
    tracemalloc.start()
    areas = postcode_areas_load()
    postcode_mb = tracemalloc.get_traced_memory()[0] / 1e6
    tracemalloc.stop()
    rss_delta = _rss_mb() - before
    del areas

    from pricing.gazetteer import gazetteer_get
    from pricing.geocoding import OfflineGeocoder
    from pricing.tests.gold import (
        HIT_KM,
        TYPED_HIT_KM,
        TYPED_HIT_RATE,
        gold_misses,
        gold_places,
        typed_gold,
        typed_misses,
    )

    started = time.perf_counter()
    gazetteer_get()
    load_s = time.perf_counter() - started
    geocoder = OfflineGeocoder()

    places = gold_places()
    place_misses = gold_misses(geocoder, places)
    place_rate = 1 - len(place_misses) / len(places)
    typed = typed_gold()
    typed_missed = typed_misses(geocoder, typed)
    typed_rate = 1 - len(typed_missed) / len(typed)
    postcodes = [g for g in typed if g.kind in ("full", "outward")]

    place_median, place_p99 = _median_ms(geocoder, [g.name for g in places])
    typed_median, typed_p99 = _median_ms(geocoder, [g.name for g in typed])

    rows = [
        ("places gold set (issue 15)", f"{len(places)}", ">= 200"),
        (
            f"  resolved within {HIT_KM:g} km",
            f"{len(places) - len(place_misses)} ({place_rate:.1%})",
            ">= 99 %",
        ),
        ("  lookup median / p99 (uncached)", f"{place_median:.4f} / {place_p99:.3f} ms", ""),
        (
            "typed gold set (issue 22)",
            f"{len(postcodes)} postcodes + {len(typed) - len(postcodes)} names",
            ">= 100 + 60",
        ),
        (
            f"  resolved within {TYPED_HIT_KM:g} km",
            f"{len(typed) - len(typed_missed)} ({typed_rate:.1%})",
            f">= {TYPED_HIT_RATE:.0%}",
        ),
        (
            "  lookup median / p99 (uncached)",
            f"{typed_median:.4f} / {typed_p99:.3f} ms",
            "< 0.2 ms",
        ),
        ("postcode districts + sectors in memory", f"{postcode_mb:.1f} MB", ""),
        ("  resident set growth loading them", f"{rss_delta:.1f} MB", ""),
        ("gazetteer load (with postcodes)", f"{load_s:.2f} s", "< 1 s idle"),
    ]
    width = max(len(r[0]) for r in rows)
    print(f"{'metric':<{width}}  {'result':>26}  target")
    print("-" * (width + 40))
    for name, value, target in rows:
        print(f"{name:<{width}}  {value:>26}  {target}")
    for miss in (*place_misses, *typed_missed):
        where = f"{miss.km} km away" if miss.km is not None else "not found"
        print(f"  miss: {miss.gold.name} ({miss.gold.kind}) -> {miss.found}, {where}")
    passed = (
        place_rate >= 0.99
        and typed_rate >= TYPED_HIT_RATE
        and place_median < 0.2
        and typed_median < 0.2
    )
    return 0 if passed else 1


if __name__ == "__main__":
    sys.exit(main())
