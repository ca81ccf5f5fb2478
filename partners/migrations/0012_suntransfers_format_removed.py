"""The Suntransfers format (ST SPEC v1) is gone (its licence: partners/intake_formats/):
accounts that pushed in it push PartnerJobs now, through the native doors."""

from django.db import migrations, models


def accounts_to_partner_job(apps, schema_editor):
    Account = apps.get_model("partners", "Account")
    Account.objects.filter(intake_format="st_spec_v1").update(intake_format="partner_job")


class Migration(migrations.Migration):
    dependencies = [
        ("partners", "0011_account_pickup_codes"),
    ]

    operations = [
        migrations.RunPython(accounts_to_partner_job, migrations.RunPython.noop),
        migrations.AlterField(
            model_name="account",
            name="intake_format",
            field=models.CharField(
                choices=[
                    ("partner_job", "PartnerJob (seed 2.10): /v1/jobs, /v1/operator/jobs, hooks")
                ],
                default="partner_job",
                help_text="The payload this account pushes jobs in; a door takes only its own format.",
                max_length=20,
            ),
        ),
    ]
