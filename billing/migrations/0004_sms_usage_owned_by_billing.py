"""Billing owns the record of each SMS it passes through (seed 8.5).

Billing used to count dispatch's NotificationLog rows (channel "sms", status "sent") by
name through apps.get_model. Dispatch now records each accepted SMS with billing; this
migration copies the SMS already sent, with the reference dispatch uses from now on.
"""

import django.db.models.deletion
from django.db import migrations, models


def copy_sent_sms(apps, schema_editor):
    NotificationLog = apps.get_model("dispatch", "NotificationLog")
    SmsUsage = apps.get_model("billing", "SmsUsage")
    sent = NotificationLog.objects.filter(channel="sms", status="sent", driver__isnull=False)
    batch = []
    for log_id, driver_id, created_at in sent.values_list("pk", "driver_id", "created_at").iterator():
        batch.append(
            SmsUsage(driver_id=driver_id, occurred_at=created_at, reference=f"job-card:{log_id}")
        )
        if len(batch) >= 5000:
            SmsUsage.objects.bulk_create(batch, ignore_conflicts=True)
            batch = []
    SmsUsage.objects.bulk_create(batch, ignore_conflicts=True)


class Migration(migrations.Migration):

    dependencies = [
        ('billing', '0003_subscription_holds_every_trial_end'),
        ('drivers', '0003_driver_trial_end_moved_to_subscription'),
        ('dispatch', '0001_initial'),
    ]

    operations = [
        migrations.CreateModel(
            name='SmsUsage',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('occurred_at', models.DateTimeField()),
                ('reference', models.CharField(max_length=64)),
                ('driver', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='+', to='drivers.driver')),
            ],
            options={
                'indexes': [models.Index(fields=['occurred_at', 'driver'], name='sms_usage_week')],
                'constraints': [models.UniqueConstraint(fields=('reference',), name='sms_usage_once_per_message')],
            },
        ),
        migrations.RunPython(copy_sent_sms, migrations.RunPython.noop),
    ]
