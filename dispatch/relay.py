"""The dispatcher: hands committed bookings to the Celery workers (``manage.py run_dispatcher``).

The booking row is the outbox. A new network booking commits with ``dispatch_started_at``
empty; that row is the message, written in the same transaction as the booking, so a web
process killed at any moment (even right after its commit) loses nothing, and web
processes publish nothing and run no thread for it.

A prebooked journey waits in the outbox until its dispatch window opens
(``Booking.dispatch_opens_at``, issue 15): the claim takes only bookings whose window has
opened, oldest window first, so the dispatcher's one-second poll starts a booking for next
week when its window opens, and not before.

The dispatcher is its own process. It claims waiting bookings with
``SELECT ... FOR UPDATE SKIP LOCKED`` (several dispatchers never claim the same row),
marks them started and publishes one ``booking_dispatch_start`` task per booking, all in
one transaction: if publishing fails the claim rolls back and the bookings are claimed
again on the next pass. If the process dies after publishing but before committing, a
booking is published twice; a dispatch step is a no-op for a booking already offered.

On PostgreSQL it sleeps on ``LISTEN booking_dispatch``: a trigger on the bookings table
(dispatch migration 0002) sends ``NOTIFY`` in the inserting transaction, so the
dispatcher wakes when the booking commits. It also polls (every second by default), which
covers a notification missed while it reconnected, and is all it does on SQLite.

The local configuration (``DISPATCH_IN_PROCESS``: SQLite, eager Celery, no servers)
dispatches each new booking in the web process after commit (dispatch.receivers); its
dispatcher still starts prebooked journeys when their window opens, and, with no beat in
that configuration, runs the periodic tasks (offer timeouts first: ``dispatch.periodic``).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable

from django.db import Error as DatabaseError
from django.db import connection, transaction
from django.utils import timezone
from kombu.exceptions import OperationalError as BrokerError

from bookings.models import Booking, BookingStatus, DispatchQueue
from core.request_ids import current_request_id, request_id_clear, request_id_set
from dispatch.tasks import booking_dispatch_start

logger = logging.getLogger(__name__)

# The channel the bookings table's insert trigger notifies (dispatch migration 0002).
CHANNEL = "booking_dispatch"
# Bookings claimed (and published) per transaction.
CLAIM_BATCH = 100
# Claims the oldest waiting bookings and marks them started, in one statement. The WHERE
# clause is the booking_dispatch_pending partial index's predicate, written with literals
# (code constants, never input) so that PostgreSQL can use that index with any plan.
_CLAIM_SQL = f"""
UPDATE {Booking._meta.db_table} SET dispatch_started_at = %s
WHERE id IN (
    SELECT id FROM {Booking._meta.db_table}
    WHERE dispatch_started_at IS NULL
        AND status = '{BookingStatus.CONFIRMED}'
        AND dispatch_queue = '{DispatchQueue.NETWORK}'
        AND dispatch_opens_at <= %s
    ORDER BY dispatch_opens_at, id
    LIMIT %s
    FOR NO KEY UPDATE SKIP LOCKED
)
RETURNING id
"""  # noqa: S608 (a table name and constants; the values are parameters)
_CLAIM_SQL_SQLITE = _CLAIM_SQL.replace("FOR NO KEY UPDATE SKIP LOCKED", "")


def dispatch_publish(booking_ids: list[int]) -> None:
    """One ``booking_dispatch_start`` task per booking, through one broker connection, so
    that the workers share a burst between them."""
    request_ids = dict(Booking.objects.filter(pk__in=booking_ids).values_list("pk", "request_id"))
    serving = current_request_id()
    with booking_dispatch_start.app.producer_or_acquire() as producer:
        try:
            for booking_id in booking_ids:
                # Under the id of the request that made the booking: the message carries
                # it (operations.request_ids), and the worker's lines for it show it.
                _request_id_switch(request_ids.get(booking_id) or serving)
                # Raised, not logged: the claim must roll back so the booking is claimed again.
                booking_dispatch_start.apply_async(
                    (booking_id,), producer=producer, raise_broker_errors=True
                )
        finally:
            _request_id_switch(serving)


def _request_id_switch(request_id: str | None) -> None:
    """Serve under ``request_id`` (none if empty)."""
    if request_id:
        request_id_set(request_id)
    else:
        request_id_clear()


def bookings_dispatch_claim(
    *, limit: int = CLAIM_BATCH, publish: Callable[[list[int]], None] = dispatch_publish
) -> list[int]:
    """Claim up to ``limit`` bookings whose dispatch window has opened and hand them over;
    their ids.

    Guarantees: a booking is claimed by one dispatcher at a time (rows another transaction
    holds are skipped, not waited for); the claim commits only once ``publish`` returned,
    so a publish that raises leaves every booking of the batch waiting, to be claimed again.
    """
    # SQLite has no row locks (and one writer at a time): the same statement without them.
    sql = _CLAIM_SQL if connection.vendor == "postgresql" else _CLAIM_SQL_SQLITE
    with transaction.atomic(), connection.cursor() as cursor:
        now = connection.ops.adapt_datetimefield_value(timezone.now())
        cursor.execute(sql, [now, now, limit])
        booking_ids = sorted(row[0] for row in cursor.fetchall())
        if booking_ids:
            publish(booking_ids)
    return booking_ids


def bookings_dispatch_claim_all(
    *, limit: int = CLAIM_BATCH, publish: Callable[[list[int]], None] = dispatch_publish
) -> int:
    """Claim and hand over batches until nothing is waiting; how many bookings."""
    total = 0
    while True:
        claimed = len(bookings_dispatch_claim(limit=limit, publish=publish))
        total += claimed
        if claimed < limit:
            return total


class Listener:
    """``LISTEN`` on Django's own connection (PostgreSQL only), renewed on reconnection."""

    def __init__(self) -> None:
        self._listening_on = None

    def ensure(self) -> None:
        if connection.vendor != "postgresql":
            return
        connection.ensure_connection()
        if connection.connection is not self._listening_on:
            with connection.cursor() as cursor:
                cursor.execute(f"LISTEN {CHANNEL}")
            self._listening_on = connection.connection

    def wait(self, seconds: float) -> None:
        """Return on the first notification (or at once for one received meanwhile: psycopg
        keeps those), else after ``seconds``."""
        if self._listening_on is None:
            time.sleep(seconds)
            return
        for _ in self._listening_on.notifies(timeout=seconds, stop_after=1):
            pass

    def reset(self) -> None:
        self._listening_on = None


def dispatcher_run(
    *,
    poll_seconds: float = 1.0,
    limit: int = CLAIM_BATCH,
    publish: Callable[[list[int]], None] = dispatch_publish,
    stopping: Callable[[], bool] = lambda: False,
    after_each_pass: Callable[[], object] | None = None,
) -> None:
    """Hand waiting bookings over as they commit, until ``stopping()`` says so.

    ``after_each_pass`` runs once per pass, after the hand-over (the periodic tasks when
    there is no beat, ``dispatch.periodic``; the demo drivers' presence). A database or
    broker error is logged and retried after ``poll_seconds`` on a fresh connection;
    nothing is lost meanwhile, the bookings wait in their table.
    """
    listener = Listener()
    while not stopping():
        try:
            # LISTEN before claiming: a booking that commits after the claim's snapshot
            # still wakes the wait below.
            listener.ensure()
            claimed = bookings_dispatch_claim_all(limit=limit, publish=publish)
            if claimed:
                logger.info("dispatcher: handed %s bookings to dispatch", claimed)
            if after_each_pass is not None:
                after_each_pass()
            listener.wait(poll_seconds)
        # The wait talks to psycopg directly: its errors are not wrapped as Django's.
        except (DatabaseError, connection.Database.Error, BrokerError):
            logger.exception("dispatcher: hand-over failed; retrying in %ss", poll_seconds)
            connection.close()
            listener.reset()
            time.sleep(poll_seconds)
