"""booking_redeem_quote: a quote becomes one booking; the same passenger's retry gets it
back, anyone else is refused (seed 2.4, contract 2.3)."""

from __future__ import annotations

import pytest
from django.utils import timezone

from bookings.models import Booking, BookingEvent
from bookings.services import BookingDraft, PassengerDetails, booking_redeem_quote
from core.errors import DomainError
from pricing.models import Quote
from pricing.tests.factories import QuoteFactory

pytestmark = pytest.mark.django_db

ASHA = PassengerDetails(name="Asha Patel", email="asha.patel@example.co.uk", phone="+447700900123")


def draft(passenger: PassengerDetails = ASHA) -> BookingDraft:
    return BookingDraft(source="website", pickup_time=timezone.now(), passenger=passenger)


def fresh(quote) -> Quote:
    """The quote as a new request loads it (nothing cached from an earlier call)."""
    return Quote.objects.get(pk=quote.pk)


def test_first_redemption_creates_the_booking_at_the_quoted_fare():
    quote = QuoteFactory()

    booking, created = booking_redeem_quote(quote=fresh(quote), draft=draft())

    assert created is True
    assert Booking.objects.get() == booking
    assert booking.quote_id == quote.pk
    assert booking.fare == quote.fare
    assert booking.passenger_email == "asha.patel@example.co.uk"
    assert fresh(quote).redeemed_at is not None
    assert BookingEvent.objects.filter(booking=booking, type="booking.created").count() == 1


def test_a_retry_by_the_same_passenger_returns_the_booking_without_writing(
    django_assert_max_num_queries,
):
    quote = QuoteFactory()
    booking, _ = booking_redeem_quote(quote=fresh(quote), draft=draft())
    retry = PassengerDetails(name="A. Patel", email="Asha.Patel@Example.co.uk", phone=ASHA.phone)

    # The quote's booking and the booking itself: two reads, no INSERT attempted.
    loaded = fresh(quote)
    with django_assert_max_num_queries(2):
        again, created = booking_redeem_quote(quote=loaded, draft=draft(retry))

    assert created is False
    assert again.pk == booking.pk
    assert Booking.objects.count() == 1


def test_a_retry_with_a_stale_quote_still_finds_the_booking():
    # The quote was loaded before the first redemption committed: the INSERT loses on the
    # quote's one-to-one and the winner's booking is returned.
    quote = QuoteFactory()
    stale = fresh(quote)
    assert getattr(stale, "booking", None) is None  # cached, as in a racing request
    booking, _ = booking_redeem_quote(quote=fresh(quote), draft=draft())

    again, created = booking_redeem_quote(quote=stale, draft=draft())

    assert (again.pk, created) == (booking.pk, False)
    assert Booking.objects.count() == 1


@pytest.mark.parametrize(
    "other",
    [
        PassengerDetails(name="Asha Patel", email="someone.else@example.co.uk", phone=ASHA.phone),
        PassengerDetails(name="Asha Patel", email=ASHA.email, phone="+447700900999"),
        PassengerDetails(name="Sam", email="sam@example.co.uk", phone="+447700900999"),
    ],
    ids=["same-phone-other-email", "same-email-other-phone", "someone-else"],
)
def test_anyone_else_is_refused_with_quote_already_redeemed(other):
    quote = QuoteFactory()
    booking_redeem_quote(quote=fresh(quote), draft=draft())

    with pytest.raises(DomainError) as refused:
        booking_redeem_quote(quote=fresh(quote), draft=draft(other))

    assert refused.value.code == "quote_already_redeemed"
    assert refused.value.detail == (
        f"Quote {quote.pk} has already been redeemed by another booking."
    )
    assert Booking.objects.get().passenger_email == ASHA.email
