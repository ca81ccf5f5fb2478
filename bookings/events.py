"""Recording booking events: the append-only log and the after-commit fanout."""

from __future__ import annotations

from django.db import connections, router, transaction

from api.inserts import RowInsert, row_saved
from bookings.models import Booking, BookingEvent
from bookings.signals import booking_event_committed

CREATED = "booking.created"
STATUS_CHANGED = "booking.status_changed"
CANCELLED = "booking.cancelled"
COMPLETED = "booking.completed"
AMENDED = "booking.amended"


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


BOOKING_INSERT = RowInsert(Booking)
EVENT_INSERT = RowInsert(BookingEvent)


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

    On PostgreSQL all the rows go in one statement (a data-modifying CTE), which is
    atomic by itself: outside a transaction one round trip, where BEGIN, an INSERT per
    row and COMMIT were the cost of every entry point's write (and of each job of a
    partner batch). Elsewhere, or when a model signal receiver must see the save, saves
    in one transaction. Either way the bookings are written whole or not at all; an
    IntegrityError (a reference, quote or job reference already taken) propagates, and
    inside an outer transaction the caller holds a savepoint around this.
    """
    events = [
        BookingEvent(
            booking=booking,
            sequence=booking.sequence,
            type=CREATED,
            to_status=booking.status,
            actor=actor[:200],
            detail=detail,
        )
        for booking in bookings
    ]
    connection = connections[router.db_for_write(Booking)]
    if (
        connection.vendor != "postgresql"
        or BOOKING_INSERT.has_signal_receivers()
        or EVENT_INSERT.has_signal_receivers()
    ):
        with transaction.atomic(using=connection.alias):
            for booking, event in zip(bookings, events, strict=True):
                booking.save(force_insert=True, using=connection.alias)
                event.booking = booking
                event.save(force_insert=True, using=connection.alias)
    else:
        _insert_with_events(connection, bookings, events)
    for event in events:
        _fanout_on_commit(event)
    return events


def _insert_with_events(connection, bookings: list[Booking], events: list[BookingEvent]) -> None:
    """The PostgreSQL statement: the bookings, then one event per new row. Several rows
    are matched back to their instances by their unique reference (RETURNING order is
    not promised); one row needs no matching, and skips the join that does it."""
    qn = connection.ops.quote_name
    booking_pk = qn(Booking._meta.pk.column)
    reference = qn(Booking._meta.get_field("reference").column)
    event_pk = qn(BookingEvent._meta.pk.column)
    event_booking = BookingEvent._meta.get_field("booking").column
    booking_insert = BOOKING_INSERT.sql(connection, rows=len(bookings))
    event_insert = EVENT_INSERT.select_sql(
        connection, source="new_booking", expressions={event_booking: booking_pk}
    )
    # Identifiers come from the models' metadata; values are always parameters.
    if len(bookings) == 1:
        sql = (
            f"WITH new_booking AS ({booking_insert} RETURNING {booking_pk}) "  # noqa: S608
            f"{event_insert} RETURNING {qn(event_booking)}, {event_pk}"
        )
    else:
        sql = (
            f"WITH new_booking AS ({booking_insert} RETURNING {booking_pk}, {reference}), "  # noqa: S608
            f"new_event AS ({event_insert} RETURNING {qn(event_booking)}, {event_pk}) "
            f"SELECT b.{reference}, b.{booking_pk}, e.{event_pk} "
            f"FROM new_booking b JOIN new_event e ON e.{qn(event_booking)} = b.{booking_pk}"
        )
    # Every event of one call has the same values but its booking.
    params = [param for booking in bookings for param in BOOKING_INSERT.params(booking, connection)]
    params += EVENT_INSERT.params(events[0], connection, skip=(event_booking,))
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        if len(bookings) == 1:
            rows = [(bookings[0].reference, *cursor.fetchone())]
        else:
            rows = cursor.fetchall()
    by_reference = {
        booking.reference: (booking, event) for booking, event in zip(bookings, events, strict=True)
    }
    for ref, booking_id, event_id in rows:
        booking, event = by_reference[ref]
        booking.pk, event.pk = booking_id, event_id
        row_saved(booking, connection.alias)
        row_saved(event, connection.alias)
        event.booking = booking
