"""The passenger pages behind statusUrl, payDriverUrl and bookingUrl."""

from decimal import Decimal

import pytest

from bookings.services import payment_record_append

pytestmark = pytest.mark.django_db


def test_status_page_shows_status_pickup_time_and_no_driver_yet(client, booking_factory):
    booking = booking_factory()
    page = client.get(f"/booking/{booking.reference}/")
    assert page.status_code == 200
    html = page.content.decode()
    assert booking.reference in html
    assert 'data-status="confirmed"' in html
    assert "Not yet assigned" in html
    assert booking.pickup_time.strftime("%Y") in html
    assert f"/booking/{booking.reference}/pay/" in html


def test_status_page_names_the_driver_once_accepted(client, accepted_booking):
    booking = accepted_booking
    html = client.get(f"/booking/{booking.reference}/").content.decode()
    assert "Asha Khan" in html
    assert "AB12 CDE" in html
    assert 'data-status="accepted"' in html


def test_pay_driver_page_shows_fare_methods_and_records(client, booking_factory):
    booking = booking_factory()
    payment_record_append(booking=booking, amount=Decimal("20.00"), method="cash")
    html = client.get(f"/booking/{booking.reference}/pay/").content.decode()
    assert "£48.20" in html
    assert "never take your payment" in html
    assert "part_paid" in html
    assert "£20.00" in html


def test_unknown_booking_page_is_404(client):
    assert client.get("/booking/DTD-ZZZZZZZZ/").status_code == 404


def test_booking_page_prefills_the_quote(client, quote_factory):
    quote = quote_factory()
    html = client.get(f"/book/?quote={quote.pk}").content.decode()
    assert f'data-quote="{quote.pk}"' in html
    assert str(quote.fare) in html
    assert "not found" in client.get("/book/?quote=nonsense").content.decode()


@pytest.mark.parametrize("reference", ["DTD-ABCD2345", "X Y+Z&1"])
def test_page_urls_are_what_reverse_gives(settings, reference):
    from django.urls import reverse, set_script_prefix

    from bookings.models import Booking
    from bookings.services import booking_pay_driver_url, booking_status_url

    booking = Booking(reference=reference)
    for prefix in ("/", "/taxi/"):
        set_script_prefix(prefix)
        try:
            assert booking_status_url(booking) == settings.SITE_URL + reverse(
                "booking-status-page", args=[reference]
            )
            assert booking_pay_driver_url(booking) == settings.SITE_URL + reverse(
                "booking-pay-driver-page", args=[reference]
            )
        finally:
            set_script_prefix("/")
