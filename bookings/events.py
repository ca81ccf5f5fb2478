"""Recording booking events: the append-only log and the after-commit fanout."""

from __future__ import annotations

from django.db import connections, router, transaction
from django.db.models.sql import InsertQuery

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


def booking_insert_created(*, booking: Booking, actor: str, detail: dict) -> BookingEvent:
    """INSERT a new ``booking`` with its ``booking.created`` event; fan out after commit.

    On PostgreSQL both rows go in one statement (a data-modifying CTE), which is atomic
    by itself: outside a transaction that is one round trip instead of BEGIN, two INSERTs
    and COMMIT, for the write every entry point makes. Elsewhere, two INSERTs in a
    transaction. Either way the booking is written whole or not at all; an
    IntegrityError (reference, quote or job reference already taken) propagates, and
    inside an outer transaction the caller holds a savepoint around this.
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
    if connection.vendor != "postgresql":
        with transaction.atomic(using=connection.alias):
            booking.save(force_insert=True, using=connection.alias)
            event.booking = booking
            event.save(force_insert=True, using=connection.alias)
        _fanout_on_commit(event)
        return event

    booking_fields = [f for f in Booking._meta.local_concrete_fields if not f.primary_key]
    query = InsertQuery(Booking)
    query.insert_values(booking_fields, [booking])
    [(booking_sql, booking_params)] = query.get_compiler(connection=connection).as_sql()
    event_fields = [
        f
        for f in BookingEvent._meta.local_concrete_fields
        if not f.primary_key and f.name != "booking"
    ]
    qn = connection.ops.quote_name
    booking_pk = qn(Booking._meta.pk.column)
    event_booking = qn(BookingEvent._meta.get_field("booking").column)
    event_columns = ", ".join(qn(f.column) for f in event_fields)
    placeholders = ", ".join(["%s"] * len(event_fields))
    # Identifiers come from the models' metadata and every value is a parameter.
    sql = (
        f"WITH new_booking AS ({booking_sql} RETURNING {booking_pk}) "  # noqa: S608
        f"INSERT INTO {qn(BookingEvent._meta.db_table)} ({event_booking}, {event_columns}) "
        f"SELECT {booking_pk}, {placeholders} FROM new_booking "
        f"RETURNING {event_booking}, {qn(BookingEvent._meta.pk.column)}"
    )
    event_params = [f.get_db_prep_save(f.pre_save(event, True), connection) for f in event_fields]
    with connection.cursor() as cursor:
        cursor.execute(sql, [*booking_params, *event_params])
        booking.pk, event.pk = cursor.fetchone()
    for instance in (booking, event):
        instance._state.adding = False
        instance._state.db = connection.alias
    event.booking = booking
    _fanout_on_commit(event)
    return event
