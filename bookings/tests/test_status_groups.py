"""Every group of booking statuses lives in bookings/transitions.py and agrees with the
transition table; no other module types a list of statuses of its own."""

from __future__ import annotations

import re

from bookings.models import BookingStatus as S
from bookings.transitions import (
    ASSIGNABLE,
    CANCELLABLE,
    DISPATCHABLE,
    DRIVER_HOLDS,
    DRIVER_MOVES,
    TERMINAL,
    TRANSITIONS,
    statuses_that_may_become,
)
from core.testing.sources import production_modules


def test_every_status_has_a_row():
    assert set(TRANSITIONS) == set(S.values)


def test_terminal_statuses_are_those_with_no_way_out():
    assert {status for status, nexts in TRANSITIONS.items() if not nexts} == TERMINAL


def test_cancellable_is_every_status_that_may_become_cancelled():
    assert set(statuses_that_may_become(S.CANCELLED)) == CANCELLABLE


def test_assignable_is_every_status_a_driver_may_accept_from():
    assert set(statuses_that_may_become(S.ACCEPTED)) == ASSIGNABLE


def test_dispatch_starts_only_where_an_offer_may_follow():
    assert set(statuses_that_may_become(S.OFFERED)) == DISPATCHABLE
    assert not DISPATCHABLE & TERMINAL


def test_driver_moves_follow_a_job_the_driver_holds():
    assert not DRIVER_HOLDS & TERMINAL
    for move in DRIVER_MOVES:
        assert any(move in TRANSITIONS[held] for held in DRIVER_HOLDS), move
    # once accepted, every status the driver can reach is held or terminal
    assert set(DRIVER_MOVES) <= DRIVER_HOLDS | TERMINAL


# Two or more statuses listed side by side: a status group typed outside transitions.py.
STATUS_LIST = re.compile(r"BookingStatus\.\w+\s*,\s*(?:#[^\n]*\n\s*)?BookingStatus\.\w+")


def test_no_module_outside_transitions_keeps_its_own_status_group():
    offenders = [
        relative
        for relative, text in production_modules(exclude=("bookings/transitions.py",))
        if STATUS_LIST.search(text)
    ]
    assert offenders == []
