"""The booking state machine of contract 3.1, in one table, and every group of statuses.

The groups below are the only lists of statuses in the code: dispatch, drivers, partners
and billing import them. Adding a status is one member of ``BookingStatus``, one row of
``TRANSITIONS`` (and its appearance as a target in other rows), a look at each group
below, and the migration ``makemigrations`` writes for the choices.
``bookings/tests/test_transitions.py`` checks the groups against the table.
"""

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

# A passenger or sender may cancel until the passenger is on board (contract 3.1).
CANCELLABLE = frozenset(_BEFORE_ON_BOARD)
# The passenger is still to be collected: a flight update may move the pickup (issue 15).
AWAITING_PICKUP = frozenset(_BEFORE_ON_BOARD)
# The end of a booking: nothing follows. Dispatch withdraws its offer and the driver's
# job load drops when a booking reaches one of these, by whatever door.
TERMINAL = frozenset({S.COMPLETED, S.CANCELLED, S.NO_SHOW})
# Where dispatch may start or continue from: a new booking, or one nobody could take.
DISPATCHABLE = frozenset({S.CONFIRMED, S.NO_DRIVER})
# A driver may be assigned by hand (back office, operator dashboard): not yet accepted.
ASSIGNABLE = frozenset({S.CONFIRMED, S.OFFERED, S.NO_DRIVER})
# A driver holds the job: it is in the driver's feed and counts towards their load.
DRIVER_HOLDS = frozenset({S.ACCEPTED, S.EN_ROUTE, S.ARRIVED, S.ON_BOARD})
# The car is on its way to the passenger: where the booker follows it live
# (booking.driver_location events, the tracking page). An account that asks for the whole
# trip follows it while the driver holds the job (DRIVER_HOLDS), on board included.
DRIVER_ON_THE_WAY = frozenset({S.ACCEPTED, S.EN_ROUTE, S.ARRIVED})
# The moves a driver may make from the app, in the order the app lists them (contract 6).
DRIVER_MOVES: tuple[str, ...] = (S.EN_ROUTE, S.ARRIVED, S.ON_BOARD, S.COMPLETED, S.NO_SHOW)
# Where the driver's app may record a settlement (contract 6): money changes hands in the
# car or at the end of the trip; before pickup nothing is owed, and a cancelled or no-show
# booking is settled by the back office.
SETTLEABLE = frozenset({S.ON_BOARD, S.COMPLETED})
# What the holder of a job (a tier-3 fleet, an operator for its own-fleet job) may report
# through the status hook (contract 5.2): forward moves only. ``confirmed``, ``offered``
# and ``no_driver`` are dispatch's own moves (a decline or a timeout going back): a report
# never moves a job backwards or frees a driver's seat without the driver.
HOLDER_REPORTS = frozenset(
    {S.ACCEPTED, S.EN_ROUTE, S.ARRIVED, S.ON_BOARD, S.COMPLETED, S.NO_SHOW, S.CANCELLED}
)
# What the sender of a job the network's own drivers serve may report (contract 5.2).
SENDER_REPORTS = frozenset({S.CANCELLED})


def transition_allowed(current: str, target: str) -> bool:
    return target in TRANSITIONS.get(current, frozenset())


def statuses_that_may_become(target: str) -> list[str]:
    """Every status from which ``target`` is a legal next step (for guarded UPDATEs)."""
    return [status for status, nexts in TRANSITIONS.items() if target in nexts]
