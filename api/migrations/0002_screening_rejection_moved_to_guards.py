# ScreeningRejection now belongs to the guards app; its table is unchanged (state only).

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [
        ("api", "0001_initial"),
        ("guards", "0001_initial"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[migrations.DeleteModel(name="ScreeningRejection")],
            database_operations=[],
        ),
    ]
