"""Flight updates from partners and operators (issue 15), when no flight status provider is
configured or they know better: ``POST /api/public/v1/flights/status``.

A sender reports on the bookings it sent (or holds as a subcontracted fleet): one booking
by ``bookingReference``, or every airport pickup it has on that flight on
``scheduledDate`` (the flight's arrival date, UK time). Each booking is updated through
``dispatch.services.flights.flight_update_apply``, the one service that moves a pickup.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from django.db.models import Q

from bookings import policies
from bookings.models import Booking
from bookings.transitions import AWAITING_PICKUP
from core.callers import Caller
from core.errors import DomainError
from core.localtime import local_day_bounds
from dispatch.flight_status import FlightReport
from dispatch.services.flights import FlightUpdate, flight_update_apply
from guards.ratelimits import limit_enforce
from guards.screening import text_screen
from partners.selectors import booking_get_for_holder

# A flight arriving late in the evening may be collected after midnight.
PICKUP_SPILL = dt.timedelta(hours=6)


@dataclass(frozen=True)
class FlightStatusReceipt:
    flight_number: str
    status: str
    updates: list[FlightUpdate]


def flight_status_receive(
    *,
    caller: Caller,
    flight_number: str,
    status: str,
    scheduled_date: dt.date | None = None,
    booking_reference: str | None = None,
    estimated_arrival: dt.datetime | None = None,
    actual_arrival: dt.datetime | None = None,
    terminal: str = "",
) -> FlightStatusReceipt:
    """Apply a sender's flight report to its airport pickups on that flight.

    The caller is a sender of jobs (its door requires one, answering an agent's key 403
    ``partner_not_allowed``: ``api.permissions.RequiresAccountKind``). 404
    ``booking_not_found`` when the sender has no such booking or no pickup on that
    flight and date awaiting its passenger; otherwise what ``flight_update_apply``
    refuses. Rate limited as intake; the terminal text is screened (contract 1.5).
    """
    account = caller.account
    limit_enforce(caller, "intake")
    text_screen(caller, {"terminal": terminal}, ("terminal",))
    number = policies.flight_number_normalise(flight_number, field="flightNumber")
    report = FlightReport(
        flight_number=number,
        status=status,
        estimated_arrival=estimated_arrival,
        actual_arrival=actual_arrival,
        terminal=terminal.strip(),
    )
    actor = f"account:{account.slug}"
    bookings = _bookings_on_flight(account, number, scheduled_date, booking_reference)
    updates = [flight_update_apply(booking=b, report=report, actor=actor) for b in bookings]
    return FlightStatusReceipt(flight_number=number, status=status, updates=updates)


def _bookings_on_flight(account, number, scheduled_date, booking_reference) -> list[Booking]:
    if booking_reference:
        return [booking_get_for_holder(account=account, reference=booking_reference)]
    start, end = local_day_bounds(scheduled_date)
    bookings = list(
        Booking.objects.filter(
            Q(account=account) | Q(subcontracted_to=account),
            flight_number=number,
            status__in=AWAITING_PICKUP,
            pickup_time__gte=start,
            pickup_time__lt=end + PICKUP_SPILL,
        ).order_by("pickup_time", "pk")
    )
    if not bookings:
        raise DomainError(
            "booking_not_found",
            f"No pickup of yours awaits flight {number} on {scheduled_date.isoformat()}.",
        )
    return bookings
