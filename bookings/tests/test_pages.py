"""The passenger pages behind statusUrl, payDriverUrl and bookingUrl."""

from decimal import Decimal

import pytest

from bookings.services import booking_pay_driver_url, booking_status_url, payment_record_append

pytestmark = pytest.mark.django_db


def test_status_page_shows_status_pickup_time_and_no_driver_yet(client, booking_factory):
    booking = booking_factory()
    page = client.get(booking_status_url(booking))
    assert page.status_code == 200
    html = page.content.decode()
    assert booking.reference in html
    assert 'data-status="confirmed"' in html
    assert "Not yet assigned" in html
    assert booking.pickup_time.strftime("%Y") in html
    assert booking_pay_driver_url(booking).removeprefix("https://taxi.example") in html


def test_status_page_names_the_driver_once_accepted(client, accepted_booking):
    booking = accepted_booking
    html = client.get(booking_status_url(booking)).content.decode()
    # Shown as the API shows the driver (contract 3): first name and initial, never in full.
    assert "Asha K." in html
    assert "Khan" not in html
    assert "AB12 CDE" in html
    assert 'data-status="accepted"' in html


def test_pay_driver_page_shows_fare_methods_and_records(client, booking_factory):
    booking = booking_factory()
    payment_record_append(booking=booking, amount=Decimal("20.00"), method="cash")
    html = client.get(booking_pay_driver_url(booking)).content.decode()
    assert "£48.20" in html
    assert "never take your payment" in html
    assert "part_paid" in html
    assert "£20.00" in html


def test_unknown_booking_page_is_404(client):
    assert client.get("/booking/DTD-ZZZZZZZZ/").status_code == 404


def test_a_reference_alone_opens_nothing(client, booking_factory):
    """Issue 13: "`/booking/<ref>/` and `/booking/<ref>/pay/` show pickup, dropoff, fare,
    the driver's full name, vehicle and registration to anyone who knows a reference
    (references travel in emails, webhooks and SMS)." Contract 3: the links carry an
    unguessable token and a reference alone opens nothing (404)."""
    booking = booking_factory()
    other = booking_factory()
    assert client.get(f"/booking/{booking.reference}/").status_code == 404
    assert client.get(f"/booking/{booking.reference}/pay/").status_code == 404
    # another booking's token does not open this one
    other_token = booking_status_url(other).rstrip("/").rsplit("/", 1)[1]
    assert client.get(f"/booking/{booking.reference}/{other_token}/").status_code == 404
    assert client.get(f"/booking/{booking.reference}/{other_token}/pay/").status_code == 404
    assert client.get(booking_status_url(booking)).status_code == 200


def test_page_links_survive_a_secret_key_rotation(client, booking_factory, settings):
    booking = booking_factory()
    url = booking_status_url(booking)
    settings.SECRET_KEY_FALLBACKS = [settings.SECRET_KEY]
    settings.SECRET_KEY = "a-new-key-" + "x" * 50
    assert client.get(url).status_code == 200
    settings.SECRET_KEY_FALLBACKS = []
    assert client.get(url).status_code == 404


def test_booking_page_prefills_the_quote(client, quote_factory):
    quote = quote_factory()
    html = client.get(f"/book/?quote={quote.pk}").content.decode()
    assert f'data-quote="{quote.pk}"' in html
    assert str(quote.fare) in html
    assert "not found" in client.get("/book/?quote=nonsense").content.decode()


@pytest.mark.parametrize("reference", ["DTD-ABCD2345", "X Y+Z&1"])
def test_page_urls_are_what_reverse_gives(settings, reference):
    from django.urls import reverse, set_script_prefix

    from bookings.links import booking_page_token
    from bookings.models import Booking

    booking = Booking(reference=reference)
    for prefix in ("/", "/taxi/"):
        set_script_prefix(prefix)
        try:
            token = booking_page_token(reference)
            assert booking_status_url(booking) == settings.SITE_URL + reverse(
                "booking-status-page", args=[reference, token]
            )
            assert booking_pay_driver_url(booking) == settings.SITE_URL + reverse(
                "booking-pay-driver-page", args=[reference, token]
            )
        finally:
            set_script_prefix("/")


def test_status_page_shows_the_pickup_code_until_the_passenger_is_on_board(client, booking_factory):
    booking = booking_factory(pickup_code="0417")
    html = client.get(booking_status_url(booking)).content.decode()
    assert 'id="pickup-code">0417<' in html
    booking.status = "on_board"
    booking.save(update_fields=["status"])
    assert "0417" not in client.get(booking_status_url(booking)).content.decode()


@pytest.mark.parametrize("reference", ["DTD-ABCD2345", "X Y+Z&1", "DTD-ÉÅ"])
def test_page_token_is_djangos_signature_under_the_key_in_force(settings, reference):
    """The token is computed from a per-process keyed HMAC; it must stay Django's own
    signature (what ``booking_page_token_valid`` checks) and follow a changed key."""
    from django.core import signing

    from bookings.links import SALT, booking_page_token, booking_page_token_valid

    first = booking_page_token(reference)
    assert first == signing.Signer(salt=SALT).signature(reference)
    assert booking_page_token_valid(reference, first)
    settings.SECRET_KEY = "a-new-key-" + "y" * 50
    second = booking_page_token(reference)
    assert second != first
    assert second == signing.Signer(salt=SALT).signature(reference)
