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


def test_plain_text_and_boolean_values_are_sent_as_save_would_send_them():
    from django.db import connection

    from api.inserts import _stored_as_is

    row = booking(
        "DTD-PLAIN001",
        status=Booking._meta.get_field("status").choices[0][0],
        wheelchair_access=True,
        notes=None,
        passenger_email="jo@example.com",
    )
    insert = RowInsert(Booking)
    expected = [
        field.get_db_prep_save(field.pre_save(row, True), connection) for field in insert.fields
    ]

    def comparable(values):
        # psycopg's Jsonb wrapper compares by identity; updated_at is "now" at each call.
        names = [field.name for field in insert.fields]
        return [
            getattr(value, "obj", value)
            for name, value in zip(names, values, strict=True)
            if name != "updated_at"
        ]

    assert comparable(insert.params(row, connection)) == comparable(expected)
    # The shortcut covers the text and boolean columns, and nothing that converts.
    kinds = {field.name: _stored_as_is(field) for field in insert.fields}
    assert kinds["reference"] is str
    assert kinds["notes"] is str
    assert kinds["wheelchair_access"] is bool
    assert kinds["fare"] is None
    assert kinds["pickup_time"] is None
    assert kinds["created_at"] is None
    assert kinds["applied_rules"] is None


def test_a_value_of_another_type_takes_the_fields_own_conversion():
    from django.db import connection

    row = booking("DTD-CONVERT1", passenger_name=12345, wheelchair_access=1)
    insert = RowInsert(Booking)
    params = dict(zip([f.name for f in insert.fields], insert.params(row, connection), strict=True))

    assert params["passenger_name"] == "12345"  # CharField.to_python
    assert params["wheelchair_access"] is True  # BooleanField.to_python
