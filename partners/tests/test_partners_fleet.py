"""Tier-3 dispatch to partner fleets (seed 1.3): the offer reaches the fleet as a signed
``booking.offered`` webhook, and the fleet answers through the booking-status hook
(contract 5.2).

Cross-app flow: dispatch -> partners webhooks -> partners status hook -> dispatch.
Signatures are checked by hand (hmac + base64), with the key the Standard Webhooks secret
encodes ("whsec_" + base64).
"""

from __future__ import annotations

import json
from datetime import UTC, timedelta

import pytest
import responses

from api.tests.assertions import assert_problem
from bookings.models import Booking, BookingStatus
from bookings.tests.factories import BookingFactory
from dispatch.models import Offer, OfferStatus, Tier
from dispatch.services import offers
from dispatch.tests.factories import PartnerFleetFactory
from partners.models import WebhookDelivery, WebhookDeliveryStatus
from partners.services.webhooks import webhook_delivery_attempt
from partners.tests.factories import AccountFactory, hmac_hex, verify_by_hand

pytestmark = pytest.mark.django_db

FLEET_HOOK = "https://fleet.example/hooks/dtd"
OTHER_FLEET_HOOK = "https://other-fleet.example/hooks/dtd"
SENDER_HOOK = "https://sender.example/hooks/taxi"
STATUS_URL = "/api/public/hooks/booking-status"


def iso_z(moment) -> str:
    return moment.astimezone(UTC).isoformat().replace("+00:00", "Z")


def calls_to(url: str):
    return [c for c in responses.calls if c.request.url == url]


@pytest.fixture
def fleet():
    return PartnerFleetFactory(account__webhook_url=FLEET_HOOK, account__slug="fastfleet")


@pytest.fixture
def offered_to_fleet(fleet, django_capture_on_commit_callbacks):
    """A booking no driver can take, dispatched until it sits with the fleet (tier 3)."""

    def offer(**booking_fields) -> tuple[Booking, Offer]:
        booking = BookingFactory(**booking_fields)
        with django_capture_on_commit_callbacks(execute=True):
            offer = offers.booking_dispatch_next(booking_id=booking.pk)
        booking.refresh_from_db()
        return booking, offer

    return offer


def report(client, account, django_capture_on_commit_callbacks, **payload):
    """POST the booking-status hook signed as ``account`` (x-partner + x-signature)."""
    payload.setdefault("occurredAt", "2026-11-22T10:00:00Z")
    body = json.dumps(payload).encode()
    with django_capture_on_commit_callbacks(execute=True):
        return client.post(
            STATUS_URL,
            data=body,
            content_type="application/json",
            HTTP_X_PARTNER=account.slug,
            HTTP_X_SIGNATURE=hmac_hex(account.signing_secret, body),
        )


# --- the offer reaches the fleet ---------------------------------------------------------------


@responses.activate
def test_a_tier_3_offer_is_one_signed_booking_offered_webhook_to_the_fleet(fleet, offered_to_fleet):
    # given a fleet endpoint that accepts, and no driver anywhere near the pickup
    responses.post(FLEET_HOOK, status=204)

    # when dispatch falls through to tier 3
    booking, offer = offered_to_fleet(notes="2 large suitcases", wheelchair_access=False)

    # then the booking is offered to the fleet
    assert (offer.tier, offer.fleet, booking.status) == (Tier.FLEET, fleet, BookingStatus.OFFERED)
    # and exactly one booking.offered delivery went to the fleet's webhook, and was delivered
    delivery = WebhookDelivery.objects.get(event_type="booking.offered")
    assert (delivery.account, delivery.booking, delivery.offer) == (fleet.account, booking, offer)
    assert delivery.event is None
    assert delivery.status == WebhookDeliveryStatus.DELIVERED
    [call] = calls_to(FLEET_HOOK)
    assert len(responses.calls) == 1
    # and it is signed with the fleet's secret as Standard Webhooks says
    headers, body = call.request.headers, call.request.body
    assert headers["webhook-id"] == delivery.webhook_id
    assert verify_by_hand(fleet.account.signing_secret, headers, body)
    # and it carries what the fleet needs to take the job
    payload = json.loads(body)
    assert payload["type"] == "booking.offered"
    assert payload["timestamp"].endswith("Z")
    assert payload["data"] == {
        "bookingReference": booking.reference,
        "offerId": offer.pk,
        "expiresAt": iso_z(offer.expires_at),
        "pickup": "Leeds station",
        "dropoff": "York",
        "pickupTime": iso_z(booking.pickup_time),
        "passengers": 1,
        "vehicleType": "saloon",
        "fareGBP": 38.2,
        "currency": "GBP",
        "wheelchairAccess": False,
        "notes": "2 large suitcases",
        "sequence": booking.sequence,
    }


@responses.activate
def test_the_offer_carries_no_passenger_contact_details(offered_to_fleet):
    # given a booking whose passenger left a name, phone and email
    responses.post(FLEET_HOOK, status=204)

    # when it is offered to the fleet
    offered_to_fleet(
        passenger_name="Jo Bloggs",
        passenger_phone="+447700900123",
        passenger_email="jo.bloggs@example.co.uk",
    )

    # then none of them is in what the fleet receives (data minimisation until it accepts)
    [call] = calls_to(FLEET_HOOK)
    body = call.request.body.decode()
    for detail in ("+447700900123", "7700900123", "jo.bloggs@example.co.uk", "Jo Bloggs"):
        assert detail not in body
    assert not {"passengerName", "passengerPhone", "passengerEmail", "jobRef"} & set(
        json.loads(body)["data"]
    )


@responses.activate
def test_an_offer_closed_before_its_attempt_is_not_sent(
    offered_to_fleet, django_capture_on_commit_callbacks
):
    # given an offer whose first attempt failed, so its delivery waits for a retry
    responses.post(FLEET_HOOK, status=503)
    booking, offer = offered_to_fleet()
    delivery = WebhookDelivery.objects.get(offer=offer)
    assert delivery.status == WebhookDeliveryStatus.PENDING
    # and the offer then times out
    with django_capture_on_commit_callbacks(execute=True):
        offers.offer_expire(offer_id=offer.pk, now=offer.expires_at + timedelta(seconds=1))
    WebhookDelivery.objects.filter(pk=delivery.pk).update(next_attempt_at=offer.created_at)

    # when the retry comes due
    webhook_delivery_attempt(delivery_id=delivery.pk)

    # then the stale offer is not pushed to the fleet again
    delivery.refresh_from_db()
    assert delivery.status == WebhookDeliveryStatus.FAILED
    assert "Offer closed" in delivery.last_error
    assert len(calls_to(FLEET_HOOK)) == 1


# --- the fleet answers through the booking-status hook ----------------------------------------


@responses.activate
def test_the_fleet_accepting_through_the_hook_takes_the_job(
    client, fleet, offered_to_fleet, django_capture_on_commit_callbacks
):
    # given a partner's job offered to the fleet; both have webhooks
    responses.post(FLEET_HOOK, status=204)
    responses.post(SENDER_HOOK, status=204)
    sender = AccountFactory(webhook_url=SENDER_HOOK)
    booking, offer = offered_to_fleet(account=sender, source="partner", job_ref="ACME-7")

    # when the fleet answers accepted, naming its driver
    response = report(
        client,
        fleet.account,
        django_capture_on_commit_callbacks,
        bookingReference=booking.reference,
        status="accepted",
        driver={"name": "Jo Driver", "vehicle": {"registration": "YX70 ABC"}},
    )

    # then the booking is accepted and subcontracted to the fleet's account
    assert response.status_code == 200, response.content
    body = response.json()
    assert (body["status"], body["previousStatus"], body["changed"]) == (
        "accepted",
        "offered",
        True,
    )
    booking.refresh_from_db()
    assert booking.status == BookingStatus.ACCEPTED
    assert booking.subcontracted_to == fleet.account
    assert Offer.objects.get(pk=offer.pk).status == OfferStatus.ACCEPTED
    event = booking.events.get(to_status="accepted")
    assert event.actor == "account:fastfleet"
    assert event.detail["driver"]["name"] == "Jo Driver"
    # and the sender hears of it through the normal status webhook
    statuses = [json.loads(c.request.body)["data"]["status"] for c in calls_to(SENDER_HOOK)]
    assert statuses[-1] == "accepted"
    # and the fleet, now holding the job, reports progress like any holder
    en_route = report(
        client,
        fleet.account,
        django_capture_on_commit_callbacks,
        bookingReference=booking.reference,
        status="en_route",
    )
    assert en_route.status_code == 200, en_route.content
    assert Booking.objects.get(pk=booking.pk).status == BookingStatus.EN_ROUTE


@responses.activate
def test_the_fleet_declining_moves_dispatch_on_to_no_driver(
    client, fleet, offered_to_fleet, django_capture_on_commit_callbacks
):
    # given a booking offered to the only fleet, with no driver left to try
    responses.post(FLEET_HOOK, status=204)
    booking, offer = offered_to_fleet()

    # when the fleet declines
    response = report(
        client,
        fleet.account,
        django_capture_on_commit_callbacks,
        bookingReference=booking.reference,
        status="declined",
    )

    # then the offer closes and dispatch moves on: nobody is left, so no_driver
    assert response.status_code == 200, response.content
    assert response.json()["previousStatus"] == "offered"
    assert Offer.objects.get(pk=offer.pk).status == OfferStatus.DECLINED
    booking.refresh_from_db()
    assert booking.status == BookingStatus.NO_DRIVER
    assert booking.subcontracted_to is None


@responses.activate
def test_the_fleet_declining_offers_the_job_to_the_next_fleet(
    client, fleet, offered_to_fleet, django_capture_on_commit_callbacks
):
    # given a second fleet behind the first
    responses.post(FLEET_HOOK, status=204)
    responses.post(OTHER_FLEET_HOOK, status=204)
    other = PartnerFleetFactory(account__webhook_url=OTHER_FLEET_HOOK)
    booking, offer = offered_to_fleet()
    assert offer.fleet == fleet

    # when the first fleet declines
    report(
        client,
        fleet.account,
        django_capture_on_commit_callbacks,
        bookingReference=booking.reference,
        status="declined",
    )

    # then the job is offered to the second fleet, which gets its own booking.offered
    booking.refresh_from_db()
    assert booking.status == BookingStatus.OFFERED
    assert Offer.objects.get(booking=booking, status=OfferStatus.OPEN).fleet == other
    [call] = calls_to(OTHER_FLEET_HOOK)
    assert json.loads(call.request.body)["type"] == "booking.offered"
    assert verify_by_hand(other.account.signing_secret, call.request.headers, call.request.body)


@responses.activate
def test_a_fleet_that_was_never_offered_the_booking_is_refused(
    client, fleet, offered_to_fleet, django_capture_on_commit_callbacks
):
    # given a booking offered to one fleet, and another approved fleet
    responses.post(FLEET_HOOK, status=204)
    booking, offer = offered_to_fleet()
    stranger = PartnerFleetFactory(account__webhook_url=OTHER_FLEET_HOOK)

    # when the other fleet tries to take it
    response = report(
        client,
        stranger.account,
        django_capture_on_commit_callbacks,
        bookingReference=booking.reference,
        status="accepted",
    )

    # then it is refused like any booking the account does not know, and nothing moved
    assert_problem(response, 404, "booking_not_found")
    booking.refresh_from_db()
    assert (booking.status, booking.subcontracted_to) == (BookingStatus.OFFERED, None)
    assert Offer.objects.get(pk=offer.pk).status == OfferStatus.OPEN


@responses.activate
def test_a_fleet_answering_an_offer_it_no_longer_holds_is_409(
    client, fleet, offered_to_fleet, django_capture_on_commit_callbacks
):
    # given the fleet's offer timed out and dispatch moved on
    responses.post(FLEET_HOOK, status=204)
    booking, offer = offered_to_fleet()
    with django_capture_on_commit_callbacks(execute=True):
        offers.offer_expire(offer_id=offer.pk, now=offer.expires_at + timedelta(seconds=1))

    # when the fleet answers accepted late
    response = report(
        client,
        fleet.account,
        django_capture_on_commit_callbacks,
        bookingReference=booking.reference,
        status="accepted",
    )

    # then it is refused and the booking is not its job
    assert_problem(response, 409, "offer_closed")
    booking.refresh_from_db()
    assert booking.status == BookingStatus.NO_DRIVER
    assert booking.subcontracted_to is None


@responses.activate
def test_a_fleet_must_answer_an_open_offer_before_reporting_progress(
    client, fleet, offered_to_fleet, django_capture_on_commit_callbacks
):
    responses.post(FLEET_HOOK, status=204)
    booking, _ = offered_to_fleet()

    response = report(
        client,
        fleet.account,
        django_capture_on_commit_callbacks,
        bookingReference=booking.reference,
        status="en_route",
    )

    assert_problem(response, 409, "invalid_transition")
    assert Booking.objects.get(pk=booking.pk).status == BookingStatus.OFFERED


def test_declined_is_only_an_answer_to_a_fleet_offer(
    client, make_account, django_capture_on_commit_callbacks
):
    # given a partner's own job, never offered to it as a fleet
    partner = make_account("partner", name="Sender", slug="sender")
    booking = BookingFactory(account=partner, source="partner", job_ref="OWN-1")

    # when the sender reports "declined"
    response = report(
        client,
        partner,
        django_capture_on_commit_callbacks,
        bookingReference=booking.reference,
        status="declined",
    )

    # then it is not a status a booking can take
    assert_problem(response, 409, "invalid_transition")
    assert Booking.objects.get(pk=booking.pk).status == BookingStatus.CONFIRMED


# --- the fleet holds the job: passenger contact, amendments and cancellation ---------------


def bodies_to(url: str) -> list[dict]:
    return [json.loads(c.request.body) for c in calls_to(url)]


@pytest.fixture
def recorded():
    """Outbound HTTP recorded from the fixtures on (``@responses.activate`` starts with the
    test body, after the fixtures)."""
    responses.start()
    yield
    responses.stop()
    responses.reset()


@pytest.fixture
def accepted_by_fleet(
    recorded, client, fleet, offered_to_fleet, make_account, django_capture_on_commit_callbacks
):
    """A partner's job, with its passenger's contact, offered to and accepted by the fleet."""
    responses.post(FLEET_HOOK, status=204)
    responses.post(SENDER_HOOK, status=204)
    sender = make_account("partner", name="Sender", slug="sender", webhook_url=SENDER_HOOK)
    booking, _ = offered_to_fleet(
        account=sender,
        source="partner",
        job_ref="ACME-9",
        passenger_name="Jo Bloggs",
        passenger_phone="+447700900123",
        passenger_email="jo.bloggs@example.co.uk",
    )
    response = report(
        client,
        fleet.account,
        django_capture_on_commit_callbacks,
        bookingReference=booking.reference,
        status="accepted",
    )
    assert response.status_code == 200, response.content
    booking.refresh_from_db()
    return booking, sender


def push_as(api_client, account, django_capture_on_commit_callbacks, job: dict):
    api_client.credentials(HTTP_X_API_KEY=account.raw_key)
    with django_capture_on_commit_callbacks(execute=True):
        response = api_client.post("/api/public/v1/jobs", data=job, format="json")
    assert response.status_code == 200, response.content
    return response.json()["results"][0]


def test_when_the_fleet_accepts_its_webhook_receives_the_passengers_name_and_phone(
    fleet, accepted_by_fleet
):
    # given a job the fleet was offered without the passenger's contact
    booking, _ = accepted_by_fleet

    # then, on accepting, the fleet's webhook receives the acceptance with the passenger
    offered, accepted = bodies_to(FLEET_HOOK)
    assert offered["type"] == "booking.offered"
    assert accepted["type"] == "booking.status_changed"
    assert accepted["data"]["status"] == "accepted"
    assert accepted["data"]["bookingReference"] == booking.reference
    assert accepted["data"]["passenger"] == {"name": "Jo Bloggs", "phone": "+447700900123"}
    assert accepted["data"]["job"]["pickup"] == "Leeds station"
    # and the delivery is signed with the fleet's secret like every webhook
    call = calls_to(FLEET_HOOK)[1]
    assert verify_by_hand(fleet.account.signing_secret, call.request.headers, call.request.body)


def test_the_passengers_contact_goes_to_the_holding_fleet_only(accepted_by_fleet):
    # given the fleet accepted the job
    booking, _ = accepted_by_fleet

    # then no other receiver (the sender here) was sent the passenger's contact
    for body in bodies_to(SENDER_HOOK):
        assert "passenger" not in body["data"]
        for detail in ("Jo Bloggs", "+447700900123", "jo.bloggs@example.co.uk"):
            assert detail not in json.dumps(body)
    # and the sender still heard of the acceptance, as before
    assert bodies_to(SENDER_HOOK)[-1]["data"]["status"] == "accepted"
    # and the fleet's copy went to the fleet's account and no one else's
    fleet_copies = WebhookDelivery.objects.filter(booking=booking, body__contains="+447700900123")
    assert {d.url for d in fleet_copies} == {FLEET_HOOK}


@responses.activate
def test_a_fleet_that_declined_never_receives_the_passengers_contact(
    client, fleet, offered_to_fleet, django_capture_on_commit_callbacks
):
    # given two fleets; the first declines, the second accepts
    responses.post(FLEET_HOOK, status=204)
    responses.post(OTHER_FLEET_HOOK, status=204)
    other = PartnerFleetFactory(account__webhook_url=OTHER_FLEET_HOOK)
    booking, _ = offered_to_fleet(passenger_name="Jo Bloggs", passenger_phone="+447700900123")
    report(
        client,
        fleet.account,
        django_capture_on_commit_callbacks,
        bookingReference=booking.reference,
        status="declined",
    )
    report(
        client,
        other.account,
        django_capture_on_commit_callbacks,
        bookingReference=booking.reference,
        status="accepted",
    )

    # then only the fleet that holds the job got the passenger's contact
    assert all("+447700900123" not in json.dumps(b) for b in bodies_to(FLEET_HOOK))
    assert bodies_to(OTHER_FLEET_HOOK)[-1]["data"]["passenger"]["phone"] == "+447700900123"


def test_an_amendment_reaches_the_fleet_as_well_as_the_sender(
    api_client, fleet, accepted_by_fleet, django_capture_on_commit_callbacks
):
    # given the fleet holds the sender's job
    booking, sender = accepted_by_fleet

    # when the sender amends it
    result = push_as(
        api_client,
        sender,
        django_capture_on_commit_callbacks,
        {"jobRef": "ACME-9", "action": "amend", "notes": "Meet at gate 4"},
    )
    assert result["outcome"] == "amended"

    # then both receive booking.amended, the fleet's copy with the job as it now stands
    [to_sender] = [b for b in bodies_to(SENDER_HOOK) if b["type"] == "booking.amended"]
    [to_fleet] = [b for b in bodies_to(FLEET_HOOK) if b["type"] == "booking.amended"]
    assert to_sender["data"]["sequence"] == to_fleet["data"]["sequence"]
    assert to_fleet["data"]["changedFields"] == ["notes"]
    assert to_fleet["data"]["job"]["notes"] == "Meet at gate 4"
    assert to_fleet["data"]["passenger"]["name"] == "Jo Bloggs"
    assert "passenger" not in to_sender["data"]
    assert (
        WebhookDelivery.objects.filter(booking=booking, event_type="booking.amended").count() == 2
    )


def test_a_cancellation_reaches_the_fleet_as_well_as_the_sender(
    api_client, fleet, accepted_by_fleet, django_capture_on_commit_callbacks
):
    # given the fleet holds the sender's job
    booking, sender = accepted_by_fleet

    # when the sender cancels it
    result = push_as(
        api_client,
        sender,
        django_capture_on_commit_callbacks,
        {"jobRef": "ACME-9", "action": "cancel"},
    )
    assert result["outcome"] == "cancelled"

    # then both are told, each on its own delivery with the same event
    [to_sender] = [b for b in bodies_to(SENDER_HOOK) if b["type"] == "booking.cancelled"]
    [to_fleet] = [b for b in bodies_to(FLEET_HOOK) if b["type"] == "booking.cancelled"]
    assert to_sender["data"]["status"] == to_fleet["data"]["status"] == "cancelled"
    deliveries = WebhookDelivery.objects.filter(booking=booking, event_type="booking.cancelled")
    assert {d.account_id for d in deliveries} == {sender.pk, fleet.account_id}
    assert all(d.status == WebhookDeliveryStatus.DELIVERED for d in deliveries)


def test_the_fleets_own_progress_reports_are_not_echoed_back_to_it(
    client, fleet, accepted_by_fleet, django_capture_on_commit_callbacks
):
    # given the fleet holds the job
    booking, _ = accepted_by_fleet
    before = len(calls_to(FLEET_HOOK))

    # when it reports its driver on the way
    report(
        client,
        fleet.account,
        django_capture_on_commit_callbacks,
        bookingReference=booking.reference,
        status="en_route",
    )

    # then only the sender is told; the fleet knows what it reported
    assert len(calls_to(FLEET_HOOK)) == before
    assert bodies_to(SENDER_HOOK)[-1]["data"]["status"] == "en_route"
