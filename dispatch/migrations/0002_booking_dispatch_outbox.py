"""The booking row as dispatch's outbox: existing bookings marked, and a NOTIFY on insert.

Bookings that dispatch already took (or that are not waiting for it) get their creation
time as ``dispatch_started_at``, so the dispatcher does not offer old bookings again. A
confirmed network booking of the last day that never reached dispatch (the case the old
lost-handover sweep covered) stays unmarked: the dispatcher picks it up.

On PostgreSQL, every INSERT into the bookings table sends ``NOTIFY booking_dispatch`` in
its own transaction, so the dispatcher wakes when the booking commits, whichever code
path inserted it (one notification per statement; PostgreSQL folds repeats within a
transaction into one).
"""

from datetime import timedelta

from django.db import migrations
from django.db.models import Exists, F, OuterRef, Q
from django.utils import timezone

CHANNEL = "booking_dispatch"

NOTIFY_SQL = f"""
CREATE FUNCTION booking_dispatch_notify() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('{CHANNEL}', '');
    RETURN NULL;
END
$$;
CREATE TRIGGER booking_dispatch_notify AFTER INSERT ON bookings_booking
    FOR EACH STATEMENT EXECUTE FUNCTION booking_dispatch_notify();
"""
NOTIFY_DROP_SQL = """
DROP TRIGGER IF EXISTS booking_dispatch_notify ON bookings_booking;
DROP FUNCTION IF EXISTS booking_dispatch_notify();
"""


def mark_started(apps, schema_editor):
    Booking = apps.get_model("bookings", "Booking")
    DispatchAttempt = apps.get_model("dispatch", "DispatchAttempt")
    waiting = Q(
        status="confirmed", dispatch_queue="network", created_at__gte=timezone.now() - timedelta(days=1)
    ) & ~Q(Exists(DispatchAttempt.objects.filter(booking=OuterRef("pk"))))
    Booking.objects.exclude(waiting).update(dispatch_started_at=F("created_at"))


def notify_create(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(NOTIFY_SQL)


def notify_drop(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(NOTIFY_DROP_SQL)


class Migration(migrations.Migration):
    dependencies = [
        ("bookings", "0008_booking_dispatch_started_at"),
        ("dispatch", "0001_initial"),
    ]

    operations = [
        migrations.RunPython(mark_started, migrations.RunPython.noop),
        migrations.RunPython(notify_create, notify_drop),
    ]
