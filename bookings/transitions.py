"""The booking state machine of contract 3.1, in one table."""

from __future__ import annotations

from bookings.models import BookingStatus as S

_BEFORE_ON_BOARD = (S.CONFIRMED, S.OFFERED, S.ACCEPTED, S.EN_ROUTE, S.ARRIVED, S.NO_DRIVER)

TRANSITIONS: dict[str, frozenset[str]] = {
    S.CONFIRMED: frozenset({S.OFFERED, S.ACCEPTED, S.NO_DRIVER, S.CANCELLED}),
    # A decline or an offer timeout goes back to confirmed while the next driver is tried.
    S.OFFERED: frozenset({S.ACCEPTED, S.CONFIRMED, S.NO_DRIVER, S.CANCELLED}),
    S.ACCEPTED: frozenset({S.EN_ROUTE, S.ARRIVED, S.CONFIRMED, S.CANCELLED}),
    S.EN_ROUTE: frozenset({S.ARRIVED, S.CANCELLED}),
    S.ARRIVED: frozenset({S.ON_BOARD, S.NO_SHOW, S.CANCELLED}),
    S.ON_BOARD: frozenset({S.COMPLETED}),
    # No driver found: stays visible for manual assignment and may be offered again.
    S.NO_DRIVER: frozenset({S.OFFERED, S.ACCEPTED, S.CANCELLED}),
    S.COMPLETED: frozenset(),
    S.CANCELLED: frozenset(),
    S.NO_SHOW: frozenset(),
}

CANCELLABLE = frozenset(_BEFORE_ON_BOARD)
TERMINAL = frozenset({S.COMPLETED, S.CANCELLED, S.NO_SHOW})


def transition_allowed(current: str, target: str) -> bool:
    return target in TRANSITIONS.get(current, frozenset())


def statuses_that_may_become(target: str) -> list[str]:
    """Every status from which ``target`` is a legal next step (for guarded UPDATEs)."""
    return [status for status, nexts in TRANSITIONS.items() if target in nexts]
