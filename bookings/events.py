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

    On PostgreSQL both rows go in one statement (a data-modifying CTE), which is atomic
    by itself: outside a transaction that is one round trip instead of BEGIN, two INSERTs
    and COMMIT, for the write every entry point makes. Elsewhere (or when a model signal
    receiver must see the save), two saves in a transaction. Either way the booking is
    written whole or not at all; an IntegrityError (reference, quote or job reference
    already taken) propagates, and inside an outer transaction the caller holds a
    savepoint around this.
    """
    event = BookingEvent(
        booking=booking,
        sequence=booking.sequence,
        type=CREATED,
        to_status=booking.status,
        actor=actor[:200],
        detail=detail,
    )
    connection = connections[router.db_for_write(Booking)]
    if (
        connection.vendor != "postgresql"
        or BOOKING_INSERT.has_signal_receivers()
        or EVENT_INSERT.has_signal_receivers()
    ):
        with transaction.atomic(using=connection.alias):
            booking.save(force_insert=True, using=connection.alias)
            event.booking = booking
            event.save(force_insert=True, using=connection.alias)
        _fanout_on_commit(event)
        return event

    qn = connection.ops.quote_name
    booking_pk = qn(Booking._meta.pk.column)
    event_booking = BookingEvent._meta.get_field("booking").column
    # Identifiers come from the models' metadata; values are always parameters.
    new_booking = f"(SELECT {booking_pk} FROM new_booking)"  # noqa: S608
    sql = (
        f"WITH new_booking AS ({BOOKING_INSERT.sql(connection)} RETURNING {booking_pk}) "
        f"{EVENT_INSERT.sql(connection, expressions={event_booking: new_booking})} "
        f"RETURNING {qn(event_booking)}, {qn(BookingEvent._meta.pk.column)}"
    )
    params = [
        *BOOKING_INSERT.params(booking, connection),
        *EVENT_INSERT.params(event, connection, skip=(event_booking,)),
    ]
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        booking.pk, event.pk = cursor.fetchone()
    row_saved(booking, connection.alias)
    row_saved(event, connection.alias)
    event.booking = booking
    _fanout_on_commit(event)
    return event
