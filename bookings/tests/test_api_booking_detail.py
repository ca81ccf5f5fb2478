"""GET and POST /api/public/v1/booking/{ref}: lookup and cancel (seed 2.8, 2.9)."""

from decimal import Decimal

import pytest

from api.tests.assertions import assert_problem
from bookings.models import BookingEvent
from bookings.services import payment_record_append

pytestmark = pytest.mark.django_db


def url(booking):
    return f"/api/public/v1/booking/{booking.reference}"


@pytest.mark.parametrize("email", ["jo.bloggs@example.co.uk", "Jo.Bloggs@EXAMPLE.co.uk"])
def test_lookup_with_matching_email(api_client, booking_factory, email):
    booking = booking_factory()
    response = api_client.get(url(booking), {"email": email})
    assert response.status_code == 200
    answer = response.json()
    assert answer["bookingReference"] == booking.reference
    assert answer["status"] == "confirmed"
    assert answer["driver"] is None
    assert answer["fareGBP"] == 48.2
    assert answer["payment"] == {"state": "unpaid", "method": "cash_to_driver", "records": []}
    assert answer["pickupTime"].endswith("Z")


def test_lookup_with_wrong_email_is_403(api_client, booking_factory):
    booking = booking_factory()
    response = api_client.get(url(booking), {"email": "someone.else@example.co.uk"})
    assert_problem(response, 403, "email_mismatch")


def test_lookup_without_email_is_400(api_client, booking_factory):
    booking = booking_factory()
    assert "email" in assert_problem(api_client.get(url(booking)), 400, "invalid_input")["errors"]


def test_lookup_of_unknown_reference_is_404(api_client):
    response = api_client.get("/api/public/v1/booking/DTD-ZZZZZZZZ", {"email": "a@example.co.uk"})
    assert_problem(response, 404, "booking_not_found")


def test_lookup_shows_driver_and_payments_once_assigned(api_client, accepted_booking):
    booking = accepted_booking
    payment_record_append(booking=booking, amount=Decimal("48.20"), method="cash", reference="r1")
    answer = api_client.get(url(booking), {"email": "jo.bloggs@example.co.uk"}).json()
    assert answer["driver"] == {
        "name": "Asha K.",
        "vehicle": {
            "make": "Toyota",
            "model": "Corolla",
            "colour": "Silver",
            "registration": "AB12 CDE",
        },
        "licensingAuthority": "Leeds City Council",
    }
    assert answer["payment"]["state"] == "paid"
    assert answer["payment"]["records"][0]["amountGBP"] == 48.2
    assert answer["payment"]["records"][0]["kind"] == "payment"


def cancel(api_client, booking, email="jo.bloggs@example.co.uk", **extra):
    return api_client.post(
        url(booking), {"action": "cancel", "email": email, **extra}, format="json"
    )


def test_cancel_with_matching_email(api_client, booking_factory):
    booking = booking_factory()
    response = cancel(api_client, booking, email="JO.BLOGGS@example.co.uk", reason="Plans changed")
    assert response.status_code == 200
    assert response.json() == {"bookingReference": booking.reference, "status": "cancelled"}
    booking.refresh_from_db()
    assert booking.status == "cancelled"
    assert booking.cancel_reason == "Plans changed"
    event = BookingEvent.objects.get(booking=booking, type="booking.cancelled")
    assert (event.from_status, event.to_status) == ("confirmed", "cancelled")


def test_cancel_twice_is_still_200(api_client, booking_factory):
    booking = booking_factory()
    cancel(api_client, booking)
    response = cancel(api_client, booking)
    assert response.status_code == 200
    assert BookingEvent.objects.filter(booking=booking, type="booking.cancelled").count() == 1


def test_cancel_with_wrong_email_is_403(api_client, booking_factory):
    booking = booking_factory()
    assert_problem(cancel(api_client, booking, email="x.y@example.co.uk"), 403, "email_mismatch")
    booking.refresh_from_db()
    assert booking.status == "confirmed"


def test_cancel_unknown_reference_is_404(api_client):
    response = api_client.post(
        "/api/public/v1/booking/DTD-ZZZZZZZZ",
        {"action": "cancel", "email": "a@b.co.uk"},
        format="json",
    )
    assert_problem(response, 404, "booking_not_found")


def test_other_action_is_400(api_client, booking_factory):
    booking = booking_factory()
    response = api_client.post(
        url(booking), {"action": "refund", "email": "jo.bloggs@example.co.uk"}, format="json"
    )
    assert "action" in assert_problem(response, 400, "invalid_input")["errors"]


@pytest.mark.parametrize("status", ["on_board", "completed", "no_show"])
def test_cancel_after_pickup_is_409(api_client, booking_factory, status):
    booking = booking_factory(status=status)
    assert_problem(cancel(api_client, booking), 409, "not_cancellable")


def test_lookup_with_driver_and_payments_takes_two_queries(
    api_client, accepted_booking, django_assert_num_queries
):
    """The booking with its driver and vehicle, then its payment records: no query per
    record, none for the driver summary."""
    from decimal import Decimal

    from bookings.services import payment_record_append

    for amount in ("10.00", "5.00", "2.50"):
        payment_record_append(booking=accepted_booking, amount=Decimal(amount), method="cash")
    url = f"/api/public/v1/booking/{accepted_booking.reference}?email=jo.bloggs@example.co.uk"
    with django_assert_num_queries(2):
        response = api_client.get(url)
    assert len(response.json()["payment"]["records"]) == 3
    assert response.json()["driver"]["name"] == "Asha K."
