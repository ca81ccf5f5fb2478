"""The race helper: results in call order, expected errors as values, and a test that fails
when any thread crashes or hangs."""

from __future__ import annotations

import threading

import pytest

from core.errors import DomainError
from core.testing.concurrency import race


def refuse():
    raise DomainError("offer_closed", "Too late.")


def crash():
    raise ZeroDivisionError("a bug in the code under test")


def test_results_come_back_in_call_order_with_expected_errors_as_values():
    outcomes = race(lambda: 1, refuse, lambda: "three")
    assert outcomes[0] == 1
    assert isinstance(outcomes[1], DomainError)
    assert outcomes[1].code == "offer_closed"
    assert outcomes[2] == "three"


def test_the_calls_run_at_the_same_time():
    # Three calls that each wait for all three to have started: only threads released
    # together finish; run one after another they would time out.
    started = threading.Barrier(3, timeout=5)
    assert race(started.wait, started.wait, started.wait, timeout=10) is not None


def test_a_thread_that_crashes_fails_the_race():
    with pytest.raises(ExceptionGroup) as caught:
        race(lambda: 1, crash, refuse)
    assert "1 of 3 threads crashed" in str(caught.value)
    [error] = caught.value.exceptions
    assert isinstance(error, ZeroDivisionError)


def test_a_race_in_which_every_thread_crashes_fails():
    with pytest.raises(ExceptionGroup) as caught:
        race(crash, crash, crash)
    assert len(caught.value.exceptions) == 3


def test_an_error_the_test_did_not_expect_is_a_crash():
    with pytest.raises(ExceptionGroup):
        race(refuse, expected=(LookupError,))


def test_a_thread_still_running_at_the_deadline_fails_the_race():
    release = threading.Event()
    try:
        with pytest.raises(AssertionError, match="race-1 still running"):
            race(lambda: None, release.wait, timeout=0.2)
    finally:
        release.set()
