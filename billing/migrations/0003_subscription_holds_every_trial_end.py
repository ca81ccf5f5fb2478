"""The subscription becomes the one home of a trial's end.

Partner accounts and drivers kept their own copies (``Account.trial_ends_at``,
``Driver.trial_ends_at``), and the partners admin could extend the account's copy
without touching the subscription or leaving an audit row. Before those columns are
dropped, every copy is folded into the subscription: a missing subscription is created
from it, and where the copies disagree the later end wins (an administrator extended it).
"""

from datetime import timedelta

from django.conf import settings
from django.db import migrations


def forward(apps, schema_editor):
    Subscription = apps.get_model("billing", "Subscription")
    Account = apps.get_model("partners", "Account")
    Driver = apps.get_model("drivers", "Driver")

    for account in Account.objects.filter(kind="partner").iterator():
        end = account.trial_ends_at or account.created_at + timedelta(
            days=settings.PARTNER_TRIAL_DAYS
        )
        subscription = Subscription.objects.filter(account_id=account.pk).first()
        if subscription is None:
            Subscription.objects.create(account_id=account.pk, trial_ends_at=end)
        elif account.trial_ends_at and account.trial_ends_at > subscription.trial_ends_at:
            Subscription.objects.filter(pk=subscription.pk).update(trial_ends_at=end)

    drivers = Driver.objects.filter(approved_at__isnull=False, trial_ends_at__isnull=False)
    for driver in drivers.iterator():
        subscription = Subscription.objects.filter(driver_id=driver.pk).first()
        if subscription is None:
            Subscription.objects.create(driver_id=driver.pk, trial_ends_at=driver.trial_ends_at)
        elif driver.trial_ends_at > subscription.trial_ends_at:
            Subscription.objects.filter(pk=subscription.pk).update(
                trial_ends_at=driver.trial_ends_at
            )


class Migration(migrations.Migration):
    dependencies = [
        ("billing", "0002_immutable_records_and_counters"),
        ("drivers", "0002_vehicle_class_choices_from_table"),
        ("partners", "0004_account_rate_limit_format"),
    ]

    operations = [migrations.RunPython(forward, migrations.RunPython.noop)]
