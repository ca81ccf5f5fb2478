"""RowInsert writes the same row that Model.save() writes, from SQL compiled once."""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal

import pytest
from django.db.models.signals import pre_save
from django.forms.models import model_to_dict
from django.utils import timezone

from api.inserts import RowInsert
from bookings.models import Booking
from pricing.models import Quote

pytestmark = pytest.mark.django_db


PICKUP_TIME = timezone.now() + timedelta(hours=2)
CREATED_AT = timezone.now()


def booking(reference: str, **overrides) -> Booking:
    values = {
        "reference": reference,
        "source": "api",
        "passenger_name": "Jo Bloggs",
        "passenger_phone": "+447700900123",
        "pickup": "Leeds station",
        "dropoff": "York",
        "pickup_lat": 53.7946,
        "pickup_lng": -1.5476,
        "pickup_time": PICKUP_TIME,
        "created_at": CREATED_AT,
        "fare": Decimal("48.20"),
        "distance_miles": Decimal("24.60"),
        "applied_rules": [{"rule": "flag_fall", "amount": "3.20"}],
        "tariff_source": {"kind": "council", "authority": "Leeds"},
    }
    values.update(overrides)
    return Booking(**values)


def stored(instance) -> dict:
    values = model_to_dict(type(instance).objects.get(pk=instance.pk))
    for name in ("id", "reference", "updated_at"):
        values.pop(name, None)
    return values


def test_a_row_inserted_reads_back_as_the_same_row_save_writes():
    by_save = booking("DTD-SAVE0001")
    by_save.save(force_insert=True)
    by_insert = RowInsert(Booking).insert(booking("DTD-FAST0001"))

    assert by_insert.pk is not None
    assert by_insert.pk != by_save.pk
    assert not by_insert._state.adding
    assert stored(by_insert) == stored(by_save)
    row = Booking.objects.get(pk=by_insert.pk)
    assert row.fare == Decimal("48.20")
    assert row.applied_rules == [{"rule": "flag_fall", "amount": "3.20"}]
    assert row.updated_at is not None  # auto_now applied through pre_save


def test_a_model_with_its_own_key_keeps_it():
    now = timezone.now()
    quote = Quote(
        pickup="Leeds station",
        pickup_label="Leeds",
        pickup_lat=53.79,
        pickup_lng=-1.54,
        dropoff="York",
        dropoff_label="York",
        dropoff_lat=53.95,
        dropoff_lng=-1.09,
        passengers=2,
        vehicle_type="saloon",
        depart_at=now,
        fare=Decimal("41.10"),
        distance_miles=Decimal("24.6"),
        duration_minutes=40,
        expires_at=now + timedelta(hours=24),
    )
    key = quote.pk

    RowInsert(Quote).insert(quote)

    assert quote.pk == key
    assert Quote.objects.get(pk=key).fare == Decimal("41.10")


def test_a_pre_save_receiver_still_sees_the_save():
    seen = []

    def receiver(sender, instance, **kwargs):
        seen.append(instance.reference)

    pre_save.connect(receiver, sender=Booking)
    try:
        RowInsert(Booking).insert(booking("DTD-SIGNAL01"))
    finally:
        pre_save.disconnect(receiver, sender=Booking)

    assert seen == ["DTD-SIGNAL01"]
    assert Booking.objects.filter(reference="DTD-SIGNAL01").exists()


def test_a_column_can_take_an_sql_expression_instead_of_a_value():
    from django.db import connection

    insert = RowInsert(Booking)
    sql = insert.sql(connection, expressions={"status": "'confirmed'"})
    params = insert.params(booking("DTD-EXPR0001"), connection, skip=("status",))

    assert "'confirmed'" in sql
    assert sql.count("%s") == len(params) == len(insert.fields) - 1
