"""A quote's and a booking's tariffSource over the tariff's stored snapshot (issue 41):
frozen as priced, whatever happens to the tariff later (contract 2.3); shown as a whole
copy showed it; a booking redeeming a quote takes the quote's part and snapshot."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest
from django.db import connection
from django.utils import timezone

from bookings.models import Booking, BookingEvent
from bookings.services import (
    BookingDraft,
    PassengerDetails,
    booking_amend,
    booking_create,
    booking_redeem_quote,
)
from pricing.catalogue import tariff_catalogue_clear
from pricing.models import Quote, Tariff, TariffSourceSnapshot
from pricing.services import quote_create, quote_price
from pricing.tariff_snapshots import jsonb_ordered
from pricing.tests.factories import QuoteFactory

pytestmark = pytest.mark.django_db

JOURNEY = {"pickup": "Manchester Piccadilly", "dropoff": "Manchester Airport", "passengers": 2}
ASHA = PassengerDetails(name="Asha Patel", email="asha.patel@example.co.uk", phone="+447700900123")


def draft() -> BookingDraft:
    return BookingDraft(
        source="website", pickup_time=timezone.now() + timedelta(hours=2), passenger=ASHA
    )


def as_read_back(source: dict) -> str:
    """A whole copy's JSON as a row read back shows it (jsonb sorts keys)."""
    return json.dumps(jsonb_ordered(source) if connection.vendor == "postgresql" else source)


def quoted() -> Quote:
    return quote_create(vehicle_type=None, depart_at=None, **JOURNEY)


def test_a_quote_and_its_booking_keep_the_tariff_source_they_were_priced_on(tariffs):
    quote = quoted()
    assert quote.tariff_source["kind"] == "council"
    before = json.dumps(Quote.objects.get(pk=quote.pk).tariff_source)
    tariff = Tariff.objects.get(reference=quote.tariff_source["reference"])
    tariff.status_text = "edited after the quote"
    tariff.uncertain = ["an edit"]
    tariff.save()

    booking, created = booking_redeem_quote(quote=Quote.objects.get(pk=quote.pk), draft=draft())

    assert created
    assert json.dumps(Quote.objects.get(pk=quote.pk).tariff_source) == before
    assert json.dumps(booking.tariff_source) == before
    assert json.dumps(Booking.objects.get(pk=booking.pk).tariff_source) == before
    assert booking.tariff_snapshot_id == quote.tariff_snapshot_id
    assert booking.tariff_source_own == Quote.objects.get(pk=quote.pk).tariff_source_own
    later = quoted()
    assert later.tariff_snapshot_id != quote.tariff_snapshot_id
    assert later.tariff_source["status"] == "edited after the quote"
    assert later.tariff_source["uncertain"][0] == "an edit"


def test_an_instant_booking_stores_a_part_and_shows_the_whole(tariffs):
    priced = quote_price(vehicle_type=None, depart_at=None, **JOURNEY)

    booking = booking_create(draft=draft(), priced=priced)

    assert booking.tariff_snapshot_id == priced.tariff_snapshot is not None
    assert "reference" not in booking.tariff_source_own
    assert json.dumps(booking.tariff_source) == json.dumps(priced.tariff_source)
    stored = Booking.objects.get(pk=booking.pk)
    assert json.dumps(stored.tariff_source) == as_read_back(priced.tariff_source)


def test_a_tariff_without_a_stored_snapshot_is_copied_whole(tariffs):
    TariffSourceSnapshot.objects.all().delete()  # as a tariff saved by a bulk update
    tariff_catalogue_clear()
    priced = quote_price(vehicle_type=None, depart_at=None, **JOURNEY)

    quote = quoted()
    booking, _ = booking_redeem_quote(quote=Quote.objects.get(pk=quote.pk), draft=draft())

    assert priced.tariff_snapshot is None
    assert quote.tariff_snapshot_id is None
    assert quote.tariff_source_own == quote.tariff_source == priced.tariff_source
    assert Booking.objects.get(pk=booking.pk).tariff_snapshot_id is None
    assert json.dumps(Booking.objects.get(pk=booking.pk).tariff_source) == as_read_back(
        priced.tariff_source
    )


def test_an_old_row_holding_the_whole_object_shows_it_and_its_booking_copies_it():
    whole = {"kind": "council", "name": "Leeds City Council", "reference": "leeds-2024"}
    quote = QuoteFactory(tariff_source=whole)

    booking, _ = booking_redeem_quote(quote=Quote.objects.get(pk=quote.pk), draft=draft())

    assert quote.tariff_snapshot_id is None
    assert Quote.objects.get(pk=quote.pk).tariff_source == whole
    assert Booking.objects.get(pk=booking.pk).tariff_source == whole
    assert Booking.objects.get(pk=booking.pk).tariff_snapshot_id is None


def test_saving_a_tariff_stores_its_snapshot_once(tariffs):
    tariff = Tariff.objects.get(reference=quoted().tariff_source["reference"])
    count = TariffSourceSnapshot.objects.count()

    tariff.save()

    assert TariffSourceSnapshot.objects.count() == count
    tariff.name = tariff.authority = "Renamed Council"
    tariff.save()
    assert TariffSourceSnapshot.objects.count() == count + 1


def test_an_amended_tariff_source_is_named_as_the_booking_shows_it(tariffs):
    booking = booking_create(
        draft=draft(), priced=quote_price(vehicle_type=None, depart_at=None, **JOURNEY)
    )

    booking_amend(
        booking=booking,
        actor="test",
        changes={"tariff_source_own": {"kind": "partner"}, "tariff_snapshot_id": None},
    )

    event = BookingEvent.objects.get(booking=booking, type="booking.amended")
    assert event.detail["fields"] == ["tariff_source"]
    assert Booking.objects.get(pk=booking.pk).tariff_source == {"kind": "partner"}
