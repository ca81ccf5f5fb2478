"""POST /api/public/v1/booking(s): the current form and the quote-redeeming form (seed 2.7)."""

from datetime import timedelta

import pytest
from django.core import mail
from django.test import override_settings
from django.utils import timezone

from api.tests.assertions import assert_problem
from bookings.links import booking_page_token
from bookings.models import Booking, Passenger
from bookings.tests.factories import PassengerFactory

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("tariffs")]


def body(future, **overrides):
    payload = {
        "pickup": "Leeds station",
        "dropoff": "Harrogate",
        "departAt": future.isoformat().replace("+00:00", "Z"),
        "passengerName": "Grace Hopper",
        "passengerEmail": "grace.hopper@example.co.uk",
        "passengerPhone": "+447700900321",
        "passengers": 2,
    }
    payload.update(overrides)
    return payload


@pytest.mark.parametrize("path", ["/api/public/v1/booking", "/api/public/v1/bookings"])
def test_current_form_creates_booking_with_links(api_client, future, path):
    response = api_client.post(path, body(future), format="json")
    assert response.status_code == 201, response.content
    answer = response.json()
    booking = Booking.objects.get(reference=answer["bookingReference"])
    assert answer["status"] == "confirmed"
    link = (
        f"https://taxi.example/booking/{booking.reference}/{booking_page_token(booking.reference)}/"
    )
    assert answer["statusUrl"] == link
    assert answer["payDriverUrl"] == f"{link}pay/"
    assert answer["fareGBP"] == float(booking.fare)
    assert answer["currency"] == "GBP"
    assert answer["pickupTime"] == future.isoformat().replace("+00:00", "Z")
    assert booking.pickup_time == future


def test_confirmation_link_is_emailed_and_confirms(
    api_client, client, future, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        response = api_client.post("/api/public/v1/booking", body(future), format="json")
    reference = response.json()["bookingReference"]
    assert len(mail.outbox) == 1
    message = mail.outbox[0]
    assert message.to == ["grace.hopper@example.co.uk"]
    assert reference in message.subject
    code = Booking.objects.get(reference=reference).pickup_code
    assert f"Pickup code: {code}" in message.body
    link = next(word for word in message.body.split() if "/passenger/confirm/" in word)
    page = client.get(link.replace("https://taxi.example", ""))
    assert page.status_code == 200
    assert Passenger.objects.get(email="grace.hopper@example.co.uk").email_verified_at is not None
    # One-time: the second use is refused.
    assert client.get(link.replace("https://taxi.example", "")).status_code == 404


def test_vehicle_type_alias_is_accepted(api_client, future):
    response = api_client.post(
        "/api/public/v1/booking", body(future, vehicle_type="executive"), format="json"
    )
    assert response.status_code == 201
    assert Booking.objects.get().vehicle_type == "executive"


def test_pickup_in_the_past_is_400(api_client):
    past = timezone.now() - timedelta(hours=1)
    response = api_client.post("/api/public/v1/booking", body(past), format="json")
    assert "departAt" in assert_problem(response, 400, "pickup_in_past")["errors"]
    assert not Booking.objects.exists()


@pytest.mark.parametrize(
    "email", ["someone@mailinator.com", "info@example.co.uk", "noreply@example.co.uk"]
)
def test_disposable_and_role_emails_are_rejected(api_client, future, email):
    response = api_client.post(
        "/api/public/v1/booking", body(future, passengerEmail=email), format="json"
    )
    assert "passengerEmail" in assert_problem(response, 400, "email_rejected")["errors"]
    assert not Booking.objects.exists()


def test_blocked_passenger_is_403(api_client, future):
    PassengerFactory(email="grace.hopper@example.co.uk", blocked=True)
    response = api_client.post("/api/public/v1/booking", body(future), format="json")
    assert_problem(response, 403, "passenger_blocked")
    assert not Booking.objects.exists()


def test_partner_without_booking_permission_is_403(api_client, future, make_account):
    account = make_account("partner")
    account.can_book = False
    account.save()
    response = api_client.post(
        "/api/public/v1/booking", body(future), format="json", HTTP_X_API_KEY=account.raw_key
    )
    assert_problem(response, 403, "partner_not_allowed")


def test_partner_supplied_fare_is_used(api_client, future, make_account):
    account = make_account("partner", name="Fare Setter")
    response = api_client.post(
        "/api/public/v1/booking",
        body(future, fareGBP=42.5),
        format="json",
        HTTP_AUTHORIZATION=f"Bearer {account.raw_key}",
    )
    assert response.status_code == 201
    booking = Booking.objects.get()
    assert str(booking.fare) == "42.50"
    assert booking.account == account


def test_unconfirmed_email_gets_eight_checks_an_hour(api_client, future):
    with override_settings(RATELIMITS={**_limits(), "booking": "100/h"}):
        for _ in range(8):
            assert (
                api_client.post("/api/public/v1/booking", body(future), format="json").status_code
                == 201
            )
        response = api_client.post("/api/public/v1/booking", body(future), format="json")
    assert_problem(response, 429, "email_limit")
    assert response["Retry-After"]


def test_too_many_bookings_from_one_email_is_429(api_client, future):
    PassengerFactory(email="grace.hopper@example.co.uk", email_verified_at=timezone.now())
    with override_settings(
        RATELIMITS={**_limits(), "booking": "100/h", "booking_per_email": "3/d"}
    ):
        for _ in range(3):
            assert (
                api_client.post("/api/public/v1/booking", body(future), format="json").status_code
                == 201
            )
        response = api_client.post("/api/public/v1/booking", body(future), format="json")
    assert_problem(response, 429, "email_limit")


def test_redeeming_form_books_the_quote(api_client, quote_factory):
    quote = quote_factory()
    response = api_client.post(
        "/api/public/v1/booking",
        {
            "quote_id": str(quote.pk),
            "passenger_name": "Ada Lovelace",
            "passenger_email": "ada.lovelace@example.co.uk",
            "passenger_phone": "+447700900111",
            "payment_method": "direct_to_driver",
        },
        format="json",
    )
    assert response.status_code == 201, response.content
    booking = Booking.objects.get(reference=response.json()["bookingReference"])
    assert booking.quote == quote
    assert booking.fare == quote.fare
    assert booking.payment_method == "direct_to_driver"
    assert response.json()["payDriverUrl"].endswith("/pay/")


def test_failed_request_leaves_no_rows(api_client, future):
    before = {model: model.objects.count() for model in (Booking, Passenger)}
    api_client.post(
        "/api/public/v1/booking", body(future, dropoff="Qwxzzy Nowhereville"), format="json"
    )
    assert {model: model.objects.count() for model in (Booking, Passenger)} == before


def _limits():
    from django.conf import settings

    return dict(settings.RATELIMITS)


def test_retry_with_idempotency_key_replays_the_booking(api_client, future):
    first = api_client.post(
        "/api/public/v1/booking", body(future), format="json", HTTP_IDEMPOTENCY_KEY="abc-123"
    )
    again = api_client.post(
        "/api/public/v1/booking", body(future), format="json", HTTP_IDEMPOTENCY_KEY="abc-123"
    )
    assert first.status_code == again.status_code == 201
    assert again.json()["bookingReference"] == first.json()["bookingReference"]
    assert again["Idempotent-Replayed"] == "true"
    assert Booking.objects.count() == 1


@pytest.mark.parametrize("fare", [0, 999999.99])
def test_an_agent_key_sending_a_fare_is_403(api_client, future, make_account, fare):
    """Issue 13: "An AI-agent key books with fareGBP: 0 or 999999.99 (201)"."""
    agent = make_account("agent")
    response = api_client.post(
        "/api/public/v1/booking",
        body(future, fareGBP=fare),
        format="json",
        HTTP_X_SERVICE_AI_KEY=agent.raw_key,
    )
    assert "fareGBP" in assert_problem(response, 403, "fare_not_allowed")["errors"]
    assert not Booking.objects.exists()


def test_an_anonymous_fare_is_403_not_ignored(api_client, future):
    response = api_client.post("/api/public/v1/booking", body(future, fareGBP=5), format="json")
    assert_problem(response, 403, "fare_not_allowed")


def test_a_partner_fare_of_zero_is_400(api_client, future, make_account):
    partner = make_account("partner")
    response = api_client.post(
        "/api/public/v1/booking",
        body(future, fareGBP=0),
        format="json",
        HTTP_X_API_KEY=partner.raw_key,
    )
    assert "fareGBP" in assert_problem(response, 400, "invalid_input")["errors"]


@pytest.mark.parametrize("phone", ["12345", "+44 113 496 0000"])
def test_phone_must_be_a_valid_mobile(api_client, future, phone):
    """Issue 13: "`passengerPhone: "12345"` is stored as `+4412345`"."""
    response = api_client.post(
        "/api/public/v1/booking", body(future, passengerPhone=phone), format="json"
    )
    assert "passengerPhone" in assert_problem(response, 400, "invalid_input")["errors"]
    assert not Booking.objects.exists()


def test_departure_in_the_year_9999_is_400(api_client, future):
    """Issue 13: "`departAt` in the year 9999"."""
    response = api_client.post(
        "/api/public/v1/booking", body(future.replace(year=9999)), format="json"
    )
    assert "departAt" in assert_problem(response, 400, "invalid_input")["errors"]
    assert not Booking.objects.exists()


def test_plus_tags_do_not_multiply_the_email_limit(api_client, future):
    """Issue 13: "Per-email limits let anyone lock a victim's email out for a day, and
    `+tag` bypasses them"."""
    with override_settings(
        RATELIMITS={**_limits(), "booking": "100/h", "unconfirmed_email": "2/h"}
    ):
        for tag in ("+a", "+b"):
            email = f"grace.hopper{tag}@example.co.uk"
            response = api_client.post(
                "/api/public/v1/booking", body(future, passengerEmail=email), format="json"
            )
            assert response.status_code == 201
        blocked = api_client.post(
            "/api/public/v1/booking",
            body(future, passengerEmail="GRACE.HOPPER+c@example.co.uk"),
            format="json",
        )
        assert_problem(blocked, 429, "email_limit")
        # Someone else's attempts never use up the passenger's own allowance.
        own = api_client.post(
            "/api/public/v1/booking", body(future), format="json", REMOTE_ADDR="192.0.2.44"
        )
    assert own.status_code == 201


def test_the_booking_carries_a_pickup_code_for_the_passenger(api_client, future):
    response = api_client.post("/api/public/v1/booking", body(future), format="json")
    booking = Booking.objects.get()
    assert len(booking.pickup_code) == 4
    assert booking.pickup_code.isdigit()
    assert response.json()["pickupCode"] == booking.pickup_code
    # and the passenger's lookup shows it too
    lookup = api_client.get(
        f"/api/public/v1/booking/{booking.reference}", {"email": "grace.hopper@example.co.uk"}
    )
    assert lookup.json()["pickupCode"] == booking.pickup_code


def test_a_partner_that_opted_out_of_pickup_codes_books_without_one(
    api_client, future, make_account
):
    account = make_account("partner", name="Own App Checks")
    account.pickup_codes = False
    account.save()
    response = api_client.post(
        "/api/public/v1/booking", body(future), format="json", HTTP_X_API_KEY=account.raw_key
    )
    assert response.status_code == 201
    assert response.json()["pickupCode"] is None
    assert Booking.objects.get().pickup_code == ""


def test_pickup_codes_are_four_random_digits():
    from bookings.pickup_codes import PICKUP_CODE_DIGITS, pickup_code_issue

    codes = {pickup_code_issue() for _ in range(50)}
    assert all(len(c) == PICKUP_CODE_DIGITS and c.isdigit() for c in codes)
    assert len(codes) > 1
