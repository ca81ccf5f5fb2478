"""tariffSource's tariff part stored once (issue 41): snapshots of every tariff as it is
now, and quotes pointing at one. Existing quotes keep their whole copy (no snapshot)."""

import django.db.models.deletion
from django.db import migrations, models


def snapshots_store(apps, schema_editor):
    from pricing.catalogue import tariff_source
    from pricing.tariff_snapshots import source_digest

    Tariff = apps.get_model("pricing", "Tariff")
    Snapshot = apps.get_model("pricing", "TariffSourceSnapshot")
    db = schema_editor.connection.alias
    rows = {}
    for tariff in Tariff.objects.using(db).iterator():
        content = tariff_source(tariff)
        rows[source_digest(content)] = content
    Snapshot.objects.using(db).bulk_create(
        [Snapshot(digest=digest, content=content) for digest, content in rows.items()],
        ignore_conflicts=True,
    )


class Migration(migrations.Migration):
    dependencies = [("pricing", "0014_band_distances_exact")]

    operations = [
        migrations.CreateModel(
            name="TariffSourceSnapshot",
            fields=[
                ("digest", models.CharField(max_length=64, primary_key=True, serialize=False)),
                ("content", models.JSONField()),
            ],
        ),
        # The column keeps its name; the field is renamed (the whole object is a property).
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.RenameField(
                    model_name="quote", old_name="tariff_source", new_name="tariff_source_own"
                ),
                migrations.AlterField(
                    model_name="quote",
                    name="tariff_source_own",
                    field=models.JSONField(db_column="tariff_source", default=dict),
                ),
            ],
        ),
        migrations.AddField(
            model_name="quote",
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
        migrations.RunPython(snapshots_store, migrations.RunPython.noop),
    ]
