"""Issue 15: the dispatch window. Bookings still waiting for the dispatcher get the moment
their window opens (so a prebooked journey already in the outbox is not offered at once);
every other row gets the migration's time, which nothing reads again."""

import django.utils.timezone
from django.db import migrations, models




def windows_of_waiting_bookings(apps, schema_editor):
    from bookings.policies import dispatch_window_opens_at

    Booking = apps.get_model("bookings", "Booking")
    waiting = Booking.objects.filter(
        status="confirmed", dispatch_queue="network", dispatch_started_at__isnull=True
    ).only("pk", "pickup_time", "duration_minutes")
    for booking in waiting.iterator():
        Booking.objects.filter(pk=booking.pk).update(
            dispatch_opens_at=dispatch_window_opens_at(
                pickup_time=booking.pickup_time, duration_minutes=booking.duration_minutes
            )
        )


class Migration(migrations.Migration):

    dependencies = [
        ('bookings', '0009_booking_resolved_places'),
        ('drivers', '0003_driver_trial_end_moved_to_subscription'),
        ('partners', '0007_merge_signed_request_and_trial_move'),
        ('pricing', '0002_quote_expires_at_unindexed'),
    ]

    operations = [
        migrations.RemoveIndex(
            model_name='booking',
            name='booking_dispatch_pending',
        ),
        migrations.AddField(
            model_name='booking',
            name='dispatch_opens_at',
            field=models.DateTimeField(default=django.utils.timezone.now, editable=False),
        ),
        migrations.RunPython(windows_of_waiting_bookings, migrations.RunPython.noop),
        migrations.AddIndex(
            model_name='booking',
            index=models.Index(condition=models.Q(('dispatch_queue', 'network'), ('dispatch_started_at__isnull', True), ('status', 'confirmed')), fields=['dispatch_opens_at', 'id'], name='booking_dispatch_pending'),
        ),
    ]
