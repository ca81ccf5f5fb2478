"""A booking's tariffSource over a stored snapshot, as its quote's (issue 41). Existing
bookings keep their whole copy (no snapshot)."""

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("bookings", "0018_booking_reference_drop_like_index"),
        ("pricing", "0015_tariff_source_snapshot"),
    ]

    operations = [
        # The column keeps its name; the field is renamed (the whole object is a property).
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.RenameField(
                    model_name="booking", old_name="tariff_source", new_name="tariff_source_own"
                ),
                migrations.AlterField(
                    model_name="booking",
                    name="tariff_source_own",
                    field=models.JSONField(blank=True, db_column="tariff_source", default=dict),
                ),
            ],
        ),
        migrations.AddField(
            model_name="booking",
            name="tariff_snapshot",
            field=models.ForeignKey(
                blank=True,
                db_index=False,
                null=True,
                on_delete=django.db.models.deletion.PROTECT,
                related_name="+",
                to="pricing.tariffsourcesnapshot",
            ),
        ),
    ]
