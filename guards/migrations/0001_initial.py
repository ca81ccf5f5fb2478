# The model moved from the api app; its table stays where it is (state only).

import django.utils.timezone
from django.db import migrations, models


class Migration(migrations.Migration):
    initial = True

    dependencies = [
        ("api", "0001_initial"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.CreateModel(
                    name="ScreeningRejection",
                    fields=[
                        ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                        ("created_at", models.DateTimeField(db_index=True, default=django.utils.timezone.now)),
                        ("caller", models.CharField(max_length=200)),
                        ("path", models.CharField(max_length=255)),
                        ("field", models.CharField(max_length=100)),
                        ("rule", models.CharField(max_length=100)),
                        ("excerpt", models.TextField()),
                    ],
                    options={
                        "db_table": "api_screeningrejection",
                        "ordering": ["-created_at"],
                    },
                ),
            ],
            database_operations=[],
        ),
    ]
