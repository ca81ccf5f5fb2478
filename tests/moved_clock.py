"""Run the suite with the clock moved: `pytest --clock=2027-03-28T00:30:00+00:00` (or
TEST_CLOCK=...) starts every test at that instant, with the clock ticking from it, so a
date computed from the test's clock lands on a DST change day, a UK week boundary or a
year ahead. `--clock-frozen` stops the clock too (at the given instant, or now): two
writes then share a timestamp, and an ordering that only a timestamp decides shows.

Loaded from the root conftest.py; `.ci/run` runs the suite at the instants it names.
Only this process's Python clock moves (time-machine): PostgreSQL's now() and Redis
expiry keep real time, and the code reads neither for a rule. A server the test starts in
another process keeps the machine's clock too: such tests are marked ``real_clock`` and
run unmoved.
"""

from __future__ import annotations

import datetime as dt
import os

import pytest
import time_machine

from core.testing.clock import next_bst_week_start, next_uk_clock_change

# The instant every test starts at, and whether the clock ticks from it.
MOVED_CLOCK = pytest.StashKey[tuple[dt.datetime, bool]]()


def pytest_addoption(parser):
    group = parser.getgroup("moved clock")
    group.addoption(
        "--clock",
        default=os.environ.get("TEST_CLOCK", ""),
        help="start every test's clock at this ISO 8601 instant (with its offset); "
        "'+365d' moves it that many days ahead of now. Default: $TEST_CLOCK.",
    )
    group.addoption(
        "--clock-frozen",
        action="store_true",
        default=os.environ.get("TEST_CLOCK_FROZEN", "") not in ("", "0"),
        help="freeze the clock (at --clock, or now) for each test: nothing ticks.",
    )


def clock_instant(value: str, *, now: dt.datetime | None = None) -> dt.datetime:
    """The instant an option names: an aware ISO 8601 time; '+Nd', N days ahead of now;
    'uk-clock-change', 30 minutes before the next UK clock change (the test's day is the
    23- or 25-hour one); 'uk-week-start', 20 minutes into the next Monday (UK) in summer
    time, when UTC still says Sunday and the billing week has just turned."""
    now = now or dt.datetime.now(dt.UTC)
    if value.startswith("+") and value.endswith("d"):
        return now + dt.timedelta(days=int(value[1:-1]))
    if value == "uk-clock-change":
        return next_uk_clock_change(now) - dt.timedelta(minutes=30)
    if value == "uk-week-start":
        return next_bst_week_start(now) + dt.timedelta(minutes=20)
    instant = dt.datetime.fromisoformat(value)
    if instant.tzinfo is None:
        raise pytest.UsageError(f"--clock needs an offset (e.g. +00:00): {value}")
    return instant


def pytest_configure(config):
    config.addinivalue_line(
        "markers",
        "real_clock: talks to a server in another process, which keeps the machine's clock; "
        "a moved-clock run leaves this test's clock alone (it still runs)",
    )
    value, frozen = config.getoption("--clock"), config.getoption("--clock-frozen")
    if not value and not frozen:
        return
    instant = clock_instant(value) if value else dt.datetime.now(dt.UTC)
    config.stash[MOVED_CLOCK] = (instant, not frozen)


def pytest_report_header(config):
    moved = config.stash.get(MOVED_CLOCK, None)
    if moved:
        instant, tick = moved
        return f"clock moved to {instant.isoformat()} ({'ticking' if tick else 'frozen'})"
    return None


@pytest.fixture(autouse=True)
def _moved_clock(request):
    moved = request.config.stash.get(MOVED_CLOCK, None)
    if moved is None or request.node.get_closest_marker("real_clock"):
        yield
        return
    instant, tick = moved
    with time_machine.travel(instant, tick=tick):
        yield
