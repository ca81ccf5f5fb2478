"""drivers 0004 encrypts the maps API keys that were stored in plain text (seed 8.5)."""

from __future__ import annotations

from datetime import date

import pytest
from django.db import connection

from core.encryption import secret_decrypt
from core.testing.migrations import migrate, migrate_to_latest

BEFORE = [("drivers", "0003_driver_trial_end_moved_to_subscription")]
AFTER = [("drivers", "0004_driver_maps_api_key_encrypted")]
KEY = "plain-text-key-0123456789"


@pytest.mark.django_db(transaction=True)
def test_plain_text_keys_are_encrypted_and_the_plain_column_is_gone():
    old = migrate(BEFORE)
    try:
        Driver = old.get_model("drivers", "Driver")
        fields = {
            "phone": "+447700900001",
            "licensing_authority": "Leeds",
            "licence_number": "L1",
            "licence_expiry": date(2030, 1, 1),
            "base_city": "Leeds",
            "base_lat": 53.8,
            "base_lng": -1.55,
        }
        with_key = Driver.objects.create(name="With key", maps_api_key=KEY, **fields)
        without = Driver.objects.create(name="Without", **fields)

        new = migrate(AFTER)

        Driver = new.get_model("drivers", "Driver")
        stored = Driver.objects.get(pk=with_key.pk).maps_api_key_encrypted
        assert KEY not in stored
        assert secret_decrypt(stored) == KEY
        assert Driver.objects.get(pk=without.pk).maps_api_key_encrypted == ""
        columns = [
            c.name
            for c in connection.introspection.get_table_description(
                connection.cursor(), Driver._meta.db_table
            )
        ]
        assert "maps_api_key" not in columns
    finally:
        migrate_to_latest()
