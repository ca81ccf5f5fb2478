"""A partner's trial end lives on its subscription (billing 0003 copied it there)."""

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [
        ("partners", "0004_account_rate_limit_format"),
        ("billing", "0003_subscription_holds_every_trial_end"),
    ]

    operations = [migrations.RemoveField(model_name="account", name="trial_ends_at")]
