"""Input validation through per-class prototypes answers exactly as DRF's own instances."""

from __future__ import annotations

import pytest
from rest_framework import serializers

from api.input_serializers import _prototype, input_serializer, validated_input
from api.problems import Problem
from bookings.api.serializers import AliasInstantRequestSerializer, V1BookingRequestSerializer
from pricing.api.serializers import QuoteV1RequestSerializer
from tests.concurrency import race

BODIES = [
    (QuoteV1RequestSerializer, {"pickup": "Leeds station", "dropoff": "York", "passengers": 2}),
    (QuoteV1RequestSerializer, {"pickup": "", "passengers": 12, "vehicleType": "rocket"}),
    (QuoteV1RequestSerializer, {"pickup": "Leeds", "dropoff": "York", "departAt": "soon"}),
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
        return "valid", dict(validated_input(serializer_class, body))
    except Problem as problem:
        return "invalid", problem.errors


@pytest.mark.parametrize(("serializer_class", "body"), BODIES)
def test_the_prototype_answers_as_a_fresh_drf_serializer(serializer_class, body):
    from api.problems import validation_problem

    verdict, expected = drf_answer(serializer_class, body)
    if verdict == "invalid":
        expected = validation_problem(expected).errors

    assert our_answer(serializer_class, body) == (verdict, expected)


def test_an_instance_from_input_serializer_validates_as_drf_does():
    for serializer_class, body in BODIES:
        serializer = input_serializer(serializer_class, body)
        fresh = serializer_class(data=body)
        assert serializer.is_valid() == fresh.is_valid()
        assert serializer.errors == fresh.errors
        assert serializer.fields is _prototype(serializer_class).fields


def test_nothing_of_one_request_reaches_the_next():
    bad = {"pickup": "", "dropoff": "York"}
    good = {"pickup": "Leeds station", "dropoff": "York"}

    with pytest.raises(Problem):
        validated_input(QuoteV1RequestSerializer, bad)
    data = validated_input(QuoteV1RequestSerializer, good)

    assert data["pickup"] == "Leeds station"
    assert data["passengers"] == 1


def test_threads_validating_at_once_each_get_their_own_answer():
    def validate(n: int):
        body = {"pickup": f"Place {n}", "dropoff": "York", "passengers": n % 8 + 1}
        for _ in range(200):
            data = validated_input(QuoteV1RequestSerializer, body)
            if data["pickup"] != f"Place {n}" or data["passengers"] != n % 8 + 1:
                return data
        return "ok"

    assert race(*[lambda n=n: validate(n) for n in range(8)]) == ["ok"] * 8


def test_a_serializer_with_nested_fields_is_built_the_ordinary_way():
    class Inner(serializers.Serializer):
        name = serializers.CharField()

    class Outer(serializers.Serializer):
        inner = Inner()
        tags = serializers.ListField(child=serializers.CharField())

    assert _prototype(Outer) is None
    assert validated_input(Outer, {"inner": {"name": "x"}, "tags": ["a"]}) == {
        "inner": {"name": "x"},
        "tags": ["a"],
    }
    with pytest.raises(Problem) as raised:
        validated_input(Outer, {"inner": {}, "tags": "a"})
    assert set(raised.value.errors) == {"inner.name", "tags"}
