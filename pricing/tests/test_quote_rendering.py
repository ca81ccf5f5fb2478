"""The quote's response body (contract 2.1): ``QuoteV1ResponseSerializer`` renders a quote
in plain code (issue 41), held here byte for byte to what DRF's generic rendering of its
declared fields gives, for quotes of every kind: a council's table, an estimate, the
network's rate, abroad, meet and greet, a road distance, and old rows without places."""

import datetime as dt
import json
from decimal import Decimal

import pytest
from rest_framework import serializers
from rest_framework.renderers import JSONRenderer

from api.output import render
from pricing.api.serializers import QuoteV1ResponseSerializer
from pricing.models import Quote
from pricing.services import quote_create, quote_price
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


def shown(quote) -> bytes:
    return JSONRenderer().render(render(QuoteV1ResponseSerializer, quote))


@pytest.mark.django_db
def test_a_quote_over_a_snapshot_shows_the_bytes_of_a_whole_copy(estimated_tariffs):
    """Issue 41: a quote stores its tariffSource as a part over the tariff's snapshot;
    fresh and read back, it renders byte for byte as the same quote holding the whole
    object did (key order included: jsonb's once read back from PostgreSQL)."""
    asked = [
        {"pickup": "Leeds station", "dropoff": "York", "depart_at": DEPART},  # calibrated
        {"pickup": "Leeds station", "dropoff": "York", "depart_at": DEPART.replace(hour=9)},
        {"pickup": "Manchester Piccadilly", "dropoff": "Manchester Airport", "depart_at": None},
        {"pickup": "Paris", "dropoff": "CDG", "depart_at": None, "worldwide": True},
    ]
    kinds = set()
    for journey in asked:
        priced = quote_price(passengers=2, vehicle_type=None, **journey)
        quote = quote_create(passengers=2, vehicle_type=None, **journey)
        assert quote.tariff_snapshot_id is not None
        assert len(quote.tariff_source_own) < len(priced.tariff_source)
        kinds.add((quote.tariff_source["kind"], quote.tariff_source["basis"]))
        whole = Quote.objects.get(pk=quote.pk)
        whole.pk, whole.tariff_source = None, priced.tariff_source  # as stored before
        whole.save(force_insert=True)
        assert whole.tariff_snapshot_id is None
        assert json.dumps(quote.tariff_source) == json.dumps(priced.tariff_source)
        for read_back in (Quote.objects.get(pk=quote.pk), Quote.objects.get(pk=whole.pk)):
            assert_rendered_as_drf_does(read_back)
        mine, before = Quote.objects.get(pk=quote.pk), Quote.objects.get(pk=whole.pk)
        assert json.dumps(mine.tariff_source) == json.dumps(before.tariff_source)
        assert shown(mine).replace(str(mine.pk).encode(), b"") == shown(before).replace(
            str(before.pk).encode(), b""
        )
        quote.refresh_from_db()
        assert json.dumps(quote.tariff_source) == json.dumps(before.tariff_source)
    assert {("council", "calibrated"), ("worldwide", "network")} <= kinds, kinds
