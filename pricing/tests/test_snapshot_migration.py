"""pricing 0015 stores a snapshot of every existing tariff's tariffSource part, and
leaves existing quotes holding their whole copy (issue 41)."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

import pytest

from core.testing.migrations import migrate, migrate_to_latest
from pricing.catalogue import tariff_source
from pricing.models import Tariff
from pricing.tariff_snapshots import source_digest

BEFORE = [("pricing", "0014_band_distances_exact")]
AFTER = [("pricing", "0015_tariff_source_snapshot")]
WHOLE = {"kind": "council", "name": "Leeds City Council", "reference": "leeds-2024"}


@pytest.mark.django_db(transaction=True)
def test_existing_tariffs_get_their_snapshot_and_old_quotes_keep_their_copy():
    old = migrate(BEFORE)
    try:
        tariff = old.get_model("pricing", "Tariff").objects.create(
            name="Leeds hackney carriages",
            authority="Leeds City Council",
            reference="leeds-2024",
            effective_from=dt.date(2024, 4, 1),
            uncertain=["night hours"],
        )
        now = dt.datetime(2030, 1, 1, tzinfo=dt.UTC)
        quote = old.get_model("pricing", "Quote").objects.create(
            pickup="Leeds station",
            pickup_label="Leeds station",
            pickup_lat=53.79,
            pickup_lng=-1.54,
            dropoff="York",
            dropoff_label="York",
            dropoff_lat=53.95,
            dropoff_lng=-1.08,
            passengers=1,
            vehicle_type="saloon",
            depart_at=now,
            fare=Decimal("40.00"),
            tariff_source=WHOLE,
            distance_miles=Decimal("24.6"),
            duration_minutes=40,
            expires_at=now,
        )

        new = migrate(AFTER)

        snapshots = new.get_model("pricing", "TariffSourceSnapshot").objects.all()
        expected = tariff_source(Tariff.objects.get(pk=tariff.pk))  # as the catalogue's
        assert [(s.digest, s.content) for s in snapshots] == [(source_digest(expected), expected)]
        assert expected["reference"] == "leeds-2024"
        assert expected["uncertain"] == ["night hours"]
        stored = new.get_model("pricing", "Quote").objects.get(pk=quote.pk)
        assert (stored.tariff_source_own, stored.tariff_snapshot_id) == (WHOLE, None)
    finally:
        migrate_to_latest()
