"""Recording booking events: the append-only log and the after-commit fanout."""

from __future__ import annotations

from django.db import connections, router, transaction

from bookings.models import Booking, BookingEvent
from bookings.signals import booking_event_committed
from core import fast_paths

CREATED = "booking.created"
STATUS_CHANGED = "booking.status_changed"
CANCELLED = "booking.cancelled"
COMPLETED = "booking.completed"
AMENDED = "booking.amended"
# The dispatch window closed with no driver (contract 5.1); detail {"reasons": [...]}.
UNASSIGNED = "booking.unassigned"


def _fanout_on_commit(event: BookingEvent) -> None:
    transaction.on_commit(
        lambda: booking_event_committed.send(sender=BookingEvent, event=event), robust=True
    )


def booking_event_record(
    *,
    booking: Booking,
    type: str,
    actor: str,
    from_status: str = "",
    to_status: str = "",
    detail: dict | None = None,
) -> BookingEvent:
    """Append an event at the booking's current sequence and fan it out after commit.

    The caller holds the transaction in which ``booking.sequence`` was bumped, so the
    (booking, sequence) unique constraint orders events without gaps or duplicates.
    """
    event = BookingEvent.objects.create(
        booking=booking,
        sequence=booking.sequence,
        type=type,
        from_status=from_status,
        to_status=to_status,
        actor=actor[:200],
        detail=detail or {},
    )
    _fanout_on_commit(event)
    return event


def booking_insert_created(*, booking: Booking, actor: str, detail: dict) -> BookingEvent:
    """INSERT a new ``booking`` with its ``booking.created`` event; fan out after commit.

    See :func:`bookings_insert_created`, of which this is the one-booking case.
    """
    [event] = bookings_insert_created(bookings=[booking], actor=actor, detail=detail)
    return event


def bookings_insert_created(
    *, bookings: list[Booking], actor: str, detail: dict
) -> list[BookingEvent]:
    """INSERT new ``bookings``, each with its ``booking.created`` event; fan out after commit.

    Guarantees: the bookings and their events are written whole or not at all. On
    PostgreSQL all the rows go in one statement (``core.fast_paths``), atomic by itself:
    outside a transaction one round trip, where BEGIN, the INSERTs and COMMIT were the
    cost of every entry point's write. Elsewhere, or when a model signal receiver must
    see the save, ``save()`` (one booking) or ``bulk_create`` (a batch) in one
    transaction. An IntegrityError (a reference, quote or job reference already taken)
    propagates with nothing written; inside an outer transaction the caller holds a
    savepoint around this.
    """
    # New bookings share their status and sequence, so their events differ only by
    # the booking they belong to (what the one-statement insert requires).
    events = [
        BookingEvent(
            booking=booking,
            sequence=bookings[0].sequence,
            type=CREATED,
            to_status=bookings[0].status,
            actor=actor[:200],
            detail=detail,
        )
        for booking in bookings
    ]
    if len({(booking.status, booking.sequence) for booking in bookings}) > 1:
        raise ValueError("New bookings are inserted together only with one status and sequence.")
    connection = connections[router.db_for_write(Booking)]
    if connection.vendor == "postgresql" and not (
        fast_paths.row_insert(Booking).has_signal_receivers()
        or fast_paths.row_insert(BookingEvent).has_signal_receivers()
    ):
        fast_paths.rows_insert_with_children(
            connection, parents=bookings, children=events, link="booking", match="reference"
        )
    else:
        with transaction.atomic(using=connection.alias, savepoint=False):
            if len(bookings) == 1:
                bookings[0].save(force_insert=True, using=connection.alias)
                events[0].booking = bookings[0]
                events[0].save(force_insert=True, using=connection.alias)
            else:
                # bulk_create sets the keys (PostgreSQL, SQLite); for one row save() is
                # cheaper. No receiver listens for these models' saves (checked above).
                Booking.objects.using(connection.alias).bulk_create(bookings)
                for booking, event in zip(bookings, events, strict=True):
                    event.booking = booking  # now that it has its key
                BookingEvent.objects.using(connection.alias).bulk_create(events)
    for event in events:
        _fanout_on_commit(event)
    return events
