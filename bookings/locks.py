"""The one way to lock a booking row (issue 38).

Whoever changes a booking under a rule that reads its current state (dispatch answering
an offer, a driver moving a job on, a flight moving the pickup) locks the row first, in
the same transaction, and reads it again under the lock. The lock is ``FOR NO KEY
UPDATE``: it holds off other writers of the row but not inserts that reference it (offers,
events, trail rows), so those never wait on it (dispatch.services.offers).
"""

from __future__ import annotations

from bookings.models import Booking


def booking_lock(
    *, pk: int | None = None, reference: str | None = None, driver_id: int | None = None
) -> Booking | None:
    """The booking with ``pk`` or ``reference`` (and, if given, held by ``driver_id``),
    read again and locked until the caller's transaction ends; None if there is none.
    Call it inside ``transaction.atomic()``."""
    if pk is None and reference is None:
        raise ValueError("booking_lock needs pk or reference")
    lookup: dict[str, object] = {}
    if pk is not None:
        lookup["pk"] = pk
    if reference is not None:
        lookup["reference"] = reference
    if driver_id is not None:
        lookup["driver_id"] = driver_id
    # At most one row matches (pk and reference are unique): no ORDER BY, no LIMIT.
    try:
        return Booking.objects.select_for_update(no_key=True).get(**lookup)
    except Booking.DoesNotExist:
        return None
