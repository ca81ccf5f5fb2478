"""The quote's response body (contract 2.1): ``QuoteV1ResponseSerializer`` renders a quote
in plain code (issue 41), held here byte for byte to what DRF's generic rendering of its
declared fields gives, for quotes of every kind: a council's table, an estimate, the
network's rate, abroad, meet and greet, a road distance, and old rows without places."""

import datetime as dt
from decimal import Decimal

import pytest
from rest_framework import serializers
from rest_framework.renderers import JSONRenderer

from api.output import render
from pricing.api.serializers import QuoteV1ResponseSerializer
from pricing.services import quote_create
from pricing.tests.factories import QuoteFactory

DEPART = dt.datetime(2030, 6, 5, 21, 30, tzinfo=dt.UTC)


def drf_rendering(quote) -> dict:
    """What DRF's own loop over the serializer's declared fields gives."""
    return serializers.Serializer.to_representation(QuoteV1ResponseSerializer(), quote)


def assert_rendered_as_drf_does(quote) -> None:
    plain = render(QuoteV1ResponseSerializer, quote)
    expected = drf_rendering(quote)
    assert list(plain) == list(expected)
    assert JSONRenderer().render(plain) == JSONRenderer().render(expected)
    assert QuoteV1ResponseSerializer(quote).data == expected


def test_the_plain_rendering_names_every_declared_field_in_order():
    quote = QuoteFactory.build(pickup_place=None, dropoff_place=None)
    assert list(render(QuoteV1ResponseSerializer, quote)) == list(
        QuoteV1ResponseSerializer().fields
    )


@pytest.mark.django_db
def test_priced_quotes_render_byte_for_byte_as_drf_renders_them(estimated_tariffs):
    quotes = [
        quote_create(
            pickup="Leeds station", dropoff="York", passengers=2, vehicle_type=None, depart_at=None
        ),
        quote_create(
            pickup="Manchester Piccadilly",
            dropoff="Manchester Airport",
            passengers=5,
            vehicle_type=None,
            depart_at=DEPART,
        ),
        quote_create(
            pickup="Manchester Airport",
            dropoff="Manchester Piccadilly",
            passengers=1,
            vehicle_type="executive",
            depart_at=DEPART.replace(tzinfo=None),  # naive: taken as UTC
            meet_and_greet=True,
        ),
        quote_create(
            pickup="Paris",
            dropoff="CDG",
            passengers=3,
            vehicle_type=None,
            depart_at=None,
            worldwide=True,
        ),
    ]
    bases = {(q.tariff_source["kind"], q.tariff_source.get("basis")) for q in quotes}
    assert {"calibrated", "table"} <= {basis for _, basis in bases}, bases
    assert "worldwide" in {kind for kind, _ in bases}, bases
    for quote in quotes:
        assert_rendered_as_drf_does(quote)
        quote.refresh_from_db()  # as read back: Decimals from the column, aware times
        assert_rendered_as_drf_does(quote)


@pytest.mark.django_db
def test_a_network_rate_quote_renders_as_drf_renders_it(tariffs):
    quote = quote_create(
        pickup="Leeds station", dropoff="York", passengers=2, vehicle_type=None, depart_at=None
    )
    assert quote.tariff_source["basis"] == "network"
    assert_rendered_as_drf_does(quote)


@pytest.mark.django_db
def test_old_and_odd_rows_render_as_drf_renders_them():
    road = QuoteFactory(distance_source="road")  # places {}: before they were kept
    assert_rendered_as_drf_does(road)
    naive = QuoteFactory.build(
        depart_at=dt.datetime(2030, 1, 1, 9, 5, 7),
        expires_at=dt.datetime(2030, 1, 2, 9, 5, 7, tzinfo=dt.timezone(dt.timedelta(hours=2))),
        fare=Decimal("12.345"),
    )
    assert render(QuoteV1ResponseSerializer, naive)["departAt"] == "2030-01-01T09:05:07Z"
    assert render(QuoteV1ResponseSerializer, naive)["expiresAt"] == "2030-01-02T07:05:07Z"
    assert_rendered_as_drf_does(naive)
    unsaved = QuoteFactory.build(
        id=None, applied_rules=None, tariff_source=None, pickup_place=None, currency=None
    )
    assert_rendered_as_drf_does(unsaved)
