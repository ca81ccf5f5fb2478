"""Seed 8.5, issue 15: a driver's own maps API key is stored encrypted (core.encryption).

Existing plain-text keys are encrypted into the new column, then the plain-text column is
dropped. Going back decrypts them into the old column again.
"""

from django.db import migrations, models


def encrypt_keys(apps, schema_editor):
    from core.encryption import secret_encrypt

    Driver = apps.get_model("drivers", "Driver")
    for driver in Driver.objects.exclude(maps_api_key="").only("pk", "maps_api_key").iterator():
        Driver.objects.filter(pk=driver.pk).update(
            maps_api_key_encrypted=secret_encrypt(driver.maps_api_key.strip())
        )


def decrypt_keys(apps, schema_editor):
    from core.encryption import secret_decrypt

    Driver = apps.get_model("drivers", "Driver")
    rows = Driver.objects.exclude(maps_api_key_encrypted="").only("pk", "maps_api_key_encrypted")
    for driver in rows.iterator():
        Driver.objects.filter(pk=driver.pk).update(
            maps_api_key=secret_decrypt(driver.maps_api_key_encrypted)[:200]
        )


class Migration(migrations.Migration):
    dependencies = [
        ("drivers", "0003_driver_trial_end_moved_to_subscription"),
    ]

    operations = [
        migrations.AddField(
            model_name="driver",
            name="maps_api_key_encrypted",
            field=models.TextField(blank=True, default="", editable=False),
        ),
        migrations.RunPython(encrypt_keys, decrypt_keys),
        migrations.RemoveField(
            model_name="driver",
            name="maps_api_key",
        ),
    ]
