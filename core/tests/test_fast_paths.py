"""core.fast_paths: each assumption the fast paths make about Django and DRF, pinned.

When an upgrade of Django or DRF fails one of these, the fast path is wrong for that
version: fix it or replace it by the plain code (``save()``, ``Serializer(data=...)``)
and measure again with ``bench/http_bench.py --baseline-tree``.
"""

from __future__ import annotations

import contextlib
from datetime import timedelta
from decimal import Decimal
from unittest import mock

import django
import pytest
import rest_framework
from django.core.exceptions import ValidationError
from django.db import connection, models
from django.db.models.signals import pre_save
from django.forms.models import model_to_dict
from django.test.utils import CaptureQueriesContext
from django.utils import timezone
from psycopg import _queries as psycopg_queries
from rest_framework import serializers

from bookings.api.serializers import AliasInstantRequestSerializer, V1BookingRequestSerializer
from bookings.models import Booking, BookingEvent
from core import fast_paths
from core.fast_paths import RowInsert, input_validate, rows_insert_with_children
from core.testing.concurrency import race
from pricing.api.serializers import QuoteV1RequestSerializer
from pricing.models import Quote

pytestmark = pytest.mark.django_db

PICKUP_TIME = timezone.now() + timedelta(hours=2)
CREATED_AT = timezone.now()


def test_the_installed_versions_are_those_the_fast_paths_were_checked_against():
    # The versions requirements.txt pins. On an upgrade, re-read core/fast_paths.py
    # against the new release notes, run this module, then move these numbers.
    assert django.VERSION[:2] == (5, 2)
    assert rest_framework.VERSION.startswith("3.18.")


# --- RowInsert -----------------------------------------------------------------------------


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


@contextlib.contextmanager
def booking_saves_seen():
    """The references of the bookings a pre_save receiver sees while the block runs."""
    seen = []

    def receiver(sender, instance, **kwargs):
        seen.append(instance.reference)

    pre_save.connect(receiver, sender=Booking)
    try:
        yield seen
    finally:
        pre_save.disconnect(receiver, sender=Booking)


def test_the_insert_writes_every_column_but_the_database_assigned_key():
    for model in (Booking, BookingEvent, Quote):
        columns = {field.column for field in RowInsert(model).fields}
        expected = {field.column for field in model._meta.concrete_fields}
        if model._meta.pk.get_internal_type() in {"AutoField", "BigAutoField"}:
            expected.discard(model._meta.pk.column)
        assert columns == expected, model


def test_a_row_inserted_reads_back_as_the_same_row_save_writes():
    by_save = booking("DTD-SAVE0001")
    by_save.save(force_insert=True)
    by_insert = RowInsert(Booking).insert(booking("DTD-FAST0001"))

    assert by_insert.pk is not None
    assert by_insert.pk != by_save.pk
    assert stored(by_insert) == stored(by_save)
    row = Booking.objects.get(pk=by_insert.pk)
    assert row.applied_rules == [{"rule": "flag_fall", "amount": "3.20"}]
    assert row.updated_at is not None  # auto_now applied through pre_save


def test_an_inserted_instance_saved_again_is_an_update_of_its_row():
    # The instance is marked as saved, as save() marks it: its next save() is an UPDATE.
    inserted = RowInsert(Booking).insert(booking("DTD-AGAIN001"))

    inserted.notes = "Door code 1234"
    inserted.save()
    inserted.passenger_name = "Jo B."
    inserted.save(update_fields=["passenger_name"])

    assert Booking.objects.count() == 1
    row = Booking.objects.get(pk=inserted.pk)
    assert (row.notes, row.passenger_name) == ("Door code 1234", "Jo B.")


def test_an_insert_unless_conflict_writes_once_and_refuses_a_taken_unique_value():
    first, second = booking("DTD-ONCE0001"), booking("DTD-ONCE0001")

    assert RowInsert(Booking).insert_unless_conflict(first) is True
    # the second holds the same reference: nothing is written, and no error is raised
    assert RowInsert(Booking).insert_unless_conflict(second) is False

    assert Booking.objects.count() == 1
    assert stored(first) == stored(Booking.objects.get())
    assert second.pk is None
    assert second._state.adding
    first.notes = "Door code 1234"
    first.save()  # marked as saved: an UPDATE of its row
    assert Booking.objects.get().notes == "Door code 1234"


def test_an_insert_unless_conflict_with_a_receiver_saves_and_refuses_the_same_way():
    with booking_saves_seen() as seen:
        assert RowInsert(Booking).insert_unless_conflict(booking("DTD-SIGN0001")) is True
        assert RowInsert(Booking).insert_unless_conflict(booking("DTD-SIGN0001")) is False
    assert seen == ["DTD-SIGN0001", "DTD-SIGN0001"]
    assert Booking.objects.count() == 1


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


def test_an_inserted_quote_saved_again_is_an_update_not_a_duplicate_key():
    """Finding (issue 24): "`RowInsert` leaves inserted instances marked unsaved: a later
    `save()` of a quote is a duplicate-key error, not the UPDATE its docstring promises." """
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
    RowInsert(Quote).insert(quote)
    assert (quote._state.adding, quote._state.db) == (False, "default")

    quote.fare = Decimal("40.00")
    quote.save()

    assert Quote.objects.count() == 1
    assert Quote.objects.get(pk=quote.pk).fare == Decimal("40.00")


def test_a_pre_save_receiver_still_sees_the_save():
    with booking_saves_seen() as seen:
        RowInsert(Booking).insert(booking("DTD-SIGNAL01"))

    assert seen == ["DTD-SIGNAL01"]
    assert Booking.objects.filter(reference="DTD-SIGNAL01").exists()


def test_a_value_of_another_type_takes_the_fields_own_conversion():
    row = booking("DTD-CONVERT1", passenger_name=12345, wheelchair_access=1)
    insert = RowInsert(Booking)
    params = dict(zip([f.name for f in insert.fields], insert.params(row, connection), strict=True))

    assert params["passenger_name"] == "12345"  # CharField.to_python
    assert params["wheelchair_access"] is True  # BooleanField.to_python


def events_for(bookings):
    return [
        BookingEvent(booking=b, sequence=1, type="booking.created", actor="test", detail={})
        for b in bookings
    ]


def insert_with_event(parent: Booking) -> None:
    rows_insert_with_children(
        connection,
        parents=[parent],
        children=events_for([parent]),
        link="booking",
        match="reference",
    )


@pytest.mark.postgres
def test_parents_and_children_are_one_statement_matched_back_by_reference():
    bookings = [booking(f"DTD-MANY000{n}") for n in range(3)]
    events = events_for(bookings)

    with CaptureQueriesContext(connection) as queries:
        rows_insert_with_children(
            connection, parents=bookings, children=events, link="booking", match="reference"
        )

    assert len(queries.captured_queries) == 1
    for parent, child in zip(bookings, events, strict=True):
        assert Booking.objects.get(pk=parent.pk).reference == parent.reference
        assert BookingEvent.objects.get(pk=child.pk).booking_id == parent.pk
        assert child.booking is parent


@pytest.mark.postgres
def test_each_shape_of_the_statement_is_its_own_and_composed_once():
    # The statement is kept per shape: which columns are NULL in every row is part of it.
    first = booking("DTD-SHAPE001", distance_miles=None)
    second = booking("DTD-SHAPE002", distance_miles=Decimal("24.60"))
    third = booking("DTD-SHAPE003", distance_miles=None)
    sent = []

    def capture(execute, sql, params, many, context):
        sent.append(sql)
        return execute(sql, params, many, context)

    with connection.execute_wrapper(capture):
        for parent in (first, second, third):
            insert_with_event(parent)

    assert sent[0] != sent[1]
    assert sent[0] is sent[2]  # the same string, composed once
    assert Booking.objects.get(pk=first.pk).distance_miles is None
    assert Booking.objects.get(pk=second.pk).distance_miles == Decimal("24.60")


def test_the_models_written_past_the_orm_have_no_save_of_their_own():
    # RowInsert does not call save(): an override would silently not run (the docstring
    # of core.fast_paths says these models have none).
    for model in (Booking, BookingEvent, Quote):
        assert model.save is models.Model.save, model


@pytest.mark.postgres
def test_a_new_booking_and_its_event_stay_within_the_parameters_psycopg_caches():
    # psycopg re-parses a statement of more than 50 parameters on every call
    # (MAX_CACHED_STATEMENT_PARAMS); the columns NULL in every row are left out instead.
    by_save = booking("DTD-SAVE0002")
    by_save.save(force_insert=True)
    parent = booking("DTD-CTE00001")
    sent = []

    def capture(execute, sql, params, many, context):
        sent.append(params)
        return execute(sql, params, many, context)

    with connection.execute_wrapper(capture):
        insert_with_event(parent)

    assert len(sent) == 1
    assert len(sent[0]) <= psycopg_queries.MAX_CACHED_STATEMENT_PARAMS
    assert stored(parent) == stored(by_save)  # the left-out columns are NULL all the same


@pytest.mark.postgres
def test_one_statement_is_all_or_nothing():
    booking("DTD-TAKEN001").save(force_insert=True)
    bookings = [booking("DTD-FREE0001"), booking("DTD-TAKEN001")]

    from django.db import IntegrityError, transaction

    with pytest.raises(IntegrityError), transaction.atomic():
        rows_insert_with_children(
            connection,
            parents=bookings,
            children=events_for(bookings),
            link="booking",
            match="reference",
        )

    assert list(Booking.objects.values_list("reference", flat=True)) == ["DTD-TAKEN001"]
    assert not BookingEvent.objects.exists()


# --- input_validate ------------------------------------------------------------------------

BODIES = [
    (QuoteV1RequestSerializer, {"pickup": "Leeds station", "dropoff": "York", "passengers": 2}),
    (QuoteV1RequestSerializer, {"pickup": "", "passengers": 12, "vehicleType": "rocket"}),
    (QuoteV1RequestSerializer, {"pickup": "Leeds", "dropoff": "York", "departAt": "soon"}),
    (QuoteV1RequestSerializer, {"pickup": "Leeds", "dropoff": "York", "vehicle": "mpv"}),
    (
        AliasInstantRequestSerializer,
        {
            "pickup_address": "Leeds station",
            "dropoff_address": "York",
            "passenger_name": "Jo",
            "passenger_phone_whatsapp": "07700 900123",
        },
    ),
    (AliasInstantRequestSerializer, {"passenger_phone_whatsapp": "not a phone", "notes": "\x00"}),
    (
        V1BookingRequestSerializer,
        {
            "pickup": "Leeds",
            "dropoff": "York",
            "departAt": "2030-01-01T10:00:00Z",
            "passengerName": "Jo",
            "passengerEmail": "jo@example.co.uk",
            "passengerPhone": "+447700900123",
            "vehicle_type": "mpv",
        },
    ),
]


def drf_answer(serializer_class, body):
    serializer = serializer_class(data=body)
    if serializer.is_valid():
        return "valid", dict(serializer.validated_data)
    return "invalid", serializer.errors


def our_answer(serializer_class, body):
    try:
        return "valid", dict(input_validate(serializer_class, body))
    except serializers.ValidationError as exc:
        return "invalid", exc.detail


@pytest.mark.parametrize(("serializer_class", "body"), BODIES)
def test_one_instance_answers_as_a_fresh_drf_serializer(serializer_class, body):
    assert our_answer(serializer_class, body) == drf_answer(serializer_class, body)


@pytest.mark.parametrize(("serializer_class", "body"), BODIES)
def test_run_validation_keeps_nothing_of_the_call_on_the_instance(serializer_class, body):
    # What makes one instance per class safe: validating changes none of its attributes
    # (read here, never written) nor those of its bound fields.
    our_answer(serializer_class, body)  # built, fields bound, validators cached
    validator = fast_paths._validators[serializer_class]
    before = dict(vars(validator))
    fields_before = {name: dict(vars(field)) for name, field in validator.fields.items()}

    our_answer(serializer_class, body)

    assert dict(vars(validator)) == before
    assert {name: dict(vars(field)) for name, field in validator.fields.items()} == fields_before


def test_nothing_of_one_request_reaches_the_next():
    bad = {"pickup": "", "dropoff": "York", "passengers": 7}
    good = {"pickup": "Leeds station", "dropoff": "York"}

    assert our_answer(QuoteV1RequestSerializer, bad)[0] == "invalid"
    data = input_validate(QuoteV1RequestSerializer, good)

    assert data["pickup"] == "Leeds station"
    assert data["passengers"] == 1


def test_threads_validating_at_once_each_get_their_own_answer():
    # Web processes run no threads, but gthread workers would: still correct.
    def validate(n: int):
        body = {"pickup": f"Place {n}", "dropoff": "York", "passengers": n % 8 + 1}
        for _ in range(200):
            data = input_validate(QuoteV1RequestSerializer, body)
            if data["pickup"] != f"Place {n}" or data["passengers"] != n % 8 + 1:
                return data
        return "ok"

    assert race(*[lambda n=n: validate(n) for n in range(8)]) == ["ok"] * 8


# --- RowInsert.row: values passed as they are (issue 41) --------------------------------


def generic_row(insert: RowInsert, obj) -> list:
    """What save() sends: every field's own pre_save and get_db_prep_save."""
    return [
        (field.column, field.get_db_prep_save(field.pre_save(obj, True), connection))
        for field in insert.fields
    ]


def comparable(row: list) -> list:
    # psycopg's Jsonb and Int wrappers compare by identity: compare what they carry.
    return [(column, getattr(value, "obj", value), type(value)) for column, value in row]


def a_quote(**overrides) -> Quote:
    now = timezone.now()
    values = {
        "pickup": "Leeds station",
        "pickup_label": "Leeds",
        "pickup_lat": 53.79,
        "pickup_lng": -1.54,
        "dropoff": "York",
        "dropoff_label": "York",
        "dropoff_lat": 53.95,
        "dropoff_lng": -1.09,
        "pickup_place": {"label": "Leeds"},
        "passengers": 2,
        "vehicle_type": "saloon",
        "depart_at": now,
        "fare": Decimal("41.10"),
        "applied_rules": [{"code": "flag_fall", "amountGBP": 3.2}],
        "tariff_source": {"kind": "council"},
        "distance_miles": Decimal("24.6"),
        "duration_minutes": 40,
        "expires_at": now + timedelta(hours=24),
    }
    values.update(overrides)
    return Quote(**values)


@pytest.mark.parametrize(
    "obj",
    [
        pytest.param(lambda: a_quote(), id="quote"),
        pytest.param(lambda: booking("DTD-ROW00001"), id="booking"),
        pytest.param(lambda: booking("DTD-ROW00002", notes=None, flight_number=""), id="nulls"),
        pytest.param(
            lambda: a_quote(pickup=12345, asap=1, pickup_lat=53, redeemed_at=None),
            id="other types",
        ),
        pytest.param(
            lambda: booking(
                "DTD-ROW00003",
                account_id=7,
                sequence=2,
                passengers=3,
                duration_minutes=40,
                final_fare=Decimal("50.00"),
                final_fare_lines=[{"code": "waiting", "amountGBP": 1.5}],
                pickup_place={"label": "Leeds"},
            ),
            id="booking with ints, decimals, json and a key",
        ),
        pytest.param(
            lambda: booking("DTD-ROW00004", passengers=True, fare=48.2, pickup_place="{}"),
            id="booking with other types",
        ),
    ],
)
def test_row_sends_what_each_fields_own_conversion_sends(obj):
    instance = obj()
    insert = RowInsert(type(instance))
    with mock.patch("django.utils.timezone.now", return_value=timezone.now()):  # auto_now
        assert comparable(insert.row(instance, connection)) == comparable(
            generic_row(insert, instance)
        )


@pytest.mark.postgres  # the values PostgreSQL's backend is given
def test_a_naive_datetime_still_takes_the_fields_conversion():
    naive = timezone.make_naive(timezone.now())
    insert = RowInsert(Quote)
    with pytest.warns(RuntimeWarning, match="naive datetime"):
        row = dict(insert.row(a_quote(depart_at=naive), connection))
    assert row["depart_at"] == timezone.make_aware(naive)


@pytest.mark.postgres  # the values PostgreSQL's backend is given
@pytest.mark.parametrize(
    ("field", "value"),
    [
        (models.CharField(max_length=5), "abc"),
        (models.TextField(), "abc"),
        (models.SlugField(), "abc"),
        (models.EmailField(), "a@example.com"),
        (models.BooleanField(), True),
        (models.FloatField(), 1.5),
        (models.UUIDField(), fast_paths.uuid.uuid4()),
        (models.BigAutoField(primary_key=True), 7),
        (models.DateTimeField(), timezone.now()),
    ],
)
def test_each_field_class_passed_as_is_returns_its_value_unchanged(field, value):
    # The assumption behind fast_paths._PASSED_AS_IS (and _aware), for this Django and
    # PostgreSQL.
    types, adapt = fast_paths._conversion(field)
    assert type(value) in types
    sent = value if adapt is None else adapt(field, connection.ops, value)
    assert sent is value
    assert field.get_db_prep_save(value, connection) is value


@pytest.mark.postgres  # the values PostgreSQL's backend is given
@pytest.mark.parametrize(
    ("field", "value"),
    [
        (models.IntegerField(), 3),
        (models.SmallIntegerField(), 3),
        (models.BigIntegerField(), 3),
        (models.PositiveIntegerField(), 3),
        (models.PositiveSmallIntegerField(), 3),
        (models.PositiveBigIntegerField(), 3),
        (models.DecimalField(max_digits=8, decimal_places=2), Decimal("48.20")),
        (models.DecimalField(max_digits=8, decimal_places=2), Decimal("-0.5E+1")),
        (models.JSONField(), {"kind": "council", "amounts": [1.5, "2"]}),
        (models.JSONField(), [{"code": "flag_fall"}]),
    ],
)
def test_each_field_class_adapted_sends_what_its_own_conversion_sends(field, value):
    # The assumption behind fast_paths._ADAPTED: the field's chain is the adapter.
    types, adapt = fast_paths._conversion(field)
    assert type(value) in types
    ours, its = adapt(field, connection.ops, value), field.get_db_prep_save(value, connection)
    assert type(ours) is type(its)
    assert getattr(ours, "obj", ours) == getattr(its, "obj", its)
    assert str(getattr(ours, "obj", ours)) == str(getattr(its, "obj", its))  # the exponent
    if hasattr(its, "dumps"):  # Jsonb: the same encoder's dumps
        assert ours.dumps(value) == its.dumps(value)


def test_a_decimal_save_refuses_is_still_refused():
    insert = RowInsert(Booking)
    for number in ("NaN", "Infinity"):
        with pytest.raises(ValidationError):
            insert.row(booking("DTD-NAN00001", fare=Decimal(number)), connection)


def test_a_foreign_key_sends_its_targets_value():
    insert = RowInsert(Booking)
    row = dict(insert.row(booking("DTD-FK000001", account_id=7, driver_id=None), connection))
    assert row["account_id"] == 7
    assert type(row["account_id"]) is int
    assert row["driver_id"] is None


def test_an_auto_now_field_or_a_subclass_takes_the_fields_own_conversion():
    class Upper(models.CharField):
        def get_prep_value(self, value):
            return value.upper()

    class Label(models.ForeignKey):
        pass

    assert fast_paths._conversion(Upper(max_length=5)) == (None, None)
    assert fast_paths._conversion(models.DurationField()) == (None, None)
    assert not fast_paths._reads_attribute(models.DateTimeField(auto_now=True))
    assert not fast_paths._reads_attribute(models.DateTimeField(auto_now_add=True))
    assert fast_paths._reads_attribute(models.DateTimeField())
    assert fast_paths._reads_attribute(models.CharField(max_length=5))
    booking_field = BookingEvent._meta.get_field("booking")
    assert fast_paths._conversion(booking_field)[0] == (int,)
    assert fast_paths._conversion(Label(Booking, on_delete=models.CASCADE)) == (None, None)


@pytest.mark.postgres  # the values PostgreSQL's backend is given
def test_an_auto_now_field_is_set_on_the_instance_and_sent():
    # DateTimeField(auto_now=True).pre_save stamps the instance, as save() does.
    instance = booking("DTD-AUTO0001")
    row = dict(RowInsert(Booking).row(instance, connection))
    assert row["updated_at"] is instance.updated_at
    assert instance.updated_at.utcoffset() is not None


# --- instance_new (issue 41) ------------------------------------------------------------


def instance_state(instance) -> dict:
    values = {k: v for k, v in vars(instance).items() if k != "_state"}
    state = instance._state
    return {**values, "adding": state.adding, "db": state.db, "cache": state.fields_cache}


def booking_columns(**overrides) -> dict:
    quote = a_quote()
    quote.save()
    return {
        "reference": "DTD-NEW00001",
        "source": "api",
        "quote": quote,
        "account_id": None,
        "passenger_name": "Jo Bloggs",
        "pickup": "Leeds station",
        "dropoff": "York",
        "pickup_time": PICKUP_TIME,
        "created_at": CREATED_AT,
        "dispatch_opens_at": CREATED_AT,
        "fare": Decimal("48.20"),
        "applied_rules": [{"rule": "flag_fall"}],
        **overrides,
    }


@pytest.mark.parametrize(
    "overrides",
    [
        pytest.param({}, id="a related object and a key by attname"),
        pytest.param({"quote": None, "passenger": None}, id="related objects given as None"),
    ],
)
def test_instance_new_is_the_instance_the_keyword_form_builds(overrides):
    columns = booking_columns(**overrides)
    ours, its = fast_paths.instance_new(Booking, columns), Booking(**columns)

    assert type(ours) is Booking
    assert instance_state(ours) == instance_state(its)
    assert ours.quote is columns["quote"]  # cached: no query to read it


def test_instance_new_of_an_event_keeps_its_booking():
    parent = booking("DTD-NEW00002")
    event = fast_paths.instance_new(
        BookingEvent, {"booking": parent, "sequence": 1, "type": "booking.created"}
    )
    assert event.booking is parent
    assert event.detail == {}  # the default, a new dict
    assert event.detail is not fast_paths.instance_new(BookingEvent, {"booking": parent}).detail


def test_instance_new_refuses_what_the_keyword_form_refuses():
    columns = {"reference": "X", "nonsense": 1}
    with pytest.raises(TypeError) as ours:
        fast_paths.instance_new(Booking, columns)
    with pytest.raises(TypeError) as its:
        Booking(**columns)
    assert str(ours.value) == str(its.value)


def test_a_relation_given_by_name_and_attname_is_the_keyword_forms_instance():
    columns = {"account": None, "account_id": 7, "created_at": CREATED_AT}
    columns["dispatch_opens_at"] = CREATED_AT  # the other default that reads the clock
    ours, its = fast_paths.instance_new(Booking, columns), Booking(**columns)
    assert instance_state(ours) == instance_state(its)
    assert ours.account_id == 7


def test_a_pre_init_receiver_still_sees_the_keywords():
    from django.db.models.signals import pre_init

    seen = []

    def receiver(sender, args, kwargs, **_):
        seen.append((args, dict(kwargs)))

    pre_init.connect(receiver, sender=BookingEvent)
    try:
        fast_paths.instance_new(BookingEvent, {"sequence": 1, "type": "booking.created"})
    finally:
        pre_init.disconnect(receiver, sender=BookingEvent)

    assert seen == [((), {"sequence": 1, "type": "booking.created"})]
