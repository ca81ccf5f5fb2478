"""A driver's trial end lives on the subscription (billing 0003 copied it there)."""

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [
        ("drivers", "0002_vehicle_class_choices_from_table"),
        ("billing", "0003_subscription_holds_every_trial_end"),
    ]

    operations = [migrations.RemoveField(model_name="driver", name="trial_ends_at")]
