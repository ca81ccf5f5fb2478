"""Outbound status webhooks, Standard Webhooks style (contract 5.1).

Signatures are checked by an independent implementation of the Standard Webhooks
verification (hmac + base64 by hand) and by the ``standardwebhooks`` package, both given
the signing secret as a Standard Webhooks secret ("whsec_" + base64 of the key).
"""

from __future__ import annotations

import base64
import json
from collections import Counter
from datetime import timedelta

import pytest
import requests
import responses
import time_machine
from django.contrib.admin.sites import site as admin_site
from django.test import RequestFactory, override_settings
from django.utils import timezone
from standardwebhooks.webhooks import Webhook

from bookings.models import Booking, BookingStatus
from bookings.services import booking_status_change
from drivers.tests.factories import fleet_driver
from partners.admin import WebhookDeliveryAdmin
from partners.models import Account, WebhookAttempt, WebhookDelivery, WebhookDeliveryStatus
from partners.services.webhooks import RETRY_SCHEDULE, webhook_delivery_attempt
from partners.tasks import webhook_deliveries_due_send
from partners.tests.factories import partner_job, verify_by_hand

HOOK = "https://partner.example/hooks/taxi"

pytestmark = pytest.mark.django_db


@pytest.fixture
def partner(make_account):
    return make_account("partner", name="Hooked", webhook_url=HOOK)


@pytest.fixture
def keyed(api_client, partner):
    api_client.credentials(HTTP_X_API_KEY=partner.raw_key)
    return api_client


def push_one(client, django_capture_on_commit_callbacks, **overrides) -> Booking:
    """Push a job; after commit its booking.created event fans out, and dispatch may add
    events of its own (no driver in these tests), each with its own delivery."""
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(
            "/api/public/v1/jobs",
            data=json.dumps(partner_job(**overrides)),
            content_type="application/json",
        )
    assert response.status_code == 200, response.json()
    return Booking.objects.get(reference=response.json()["results"][0]["bookingReference"])


def created_delivery(booking) -> WebhookDelivery:
    return WebhookDelivery.objects.get(booking=booking, event_type="booking.created")


def calls_for(delivery):
    return [c for c in responses.calls if c.request.headers["webhook-id"] == delivery.webhook_id]


@responses.activate
def test_created_event_is_delivered_signed_and_verifiable(
    keyed, partner, django_capture_on_commit_callbacks
):
    # given a receiver that accepts
    responses.post(HOOK, status=204)

    # when a job is pushed
    booking = push_one(keyed, django_capture_on_commit_callbacks, jobRef="W-1")

    # then one signed POST of the created event arrives with the contract 5.1 body
    delivery = created_delivery(booking)
    [call] = calls_for(delivery)
    headers, body = call.request.headers, call.request.body
    assert headers["webhook-id"].startswith("msg_")
    assert abs(int(headers["webhook-timestamp"]) - timezone.now().timestamp()) < 10
    assert verify_by_hand(partner.signing_secret, headers, body)
    Webhook(partner.signing_secret).verify(body, dict(headers))
    payload = json.loads(body)
    assert payload["type"] == "booking.created"
    assert payload["timestamp"].endswith("Z")
    assert payload["data"] == {
        "bookingReference": booking.reference,
        "jobRef": "W-1",
        "status": "confirmed",
        "previousStatus": None,
        "driver": None,
        "sequence": 1,
    }
    delivery.refresh_from_db()
    assert delivery.status == WebhookDeliveryStatus.DELIVERED
    assert delivery.attempts.get().status_code == 204


@responses.activate
def test_a_wrong_key_does_not_verify(keyed, partner, django_capture_on_commit_callbacks):
    responses.post(HOOK, status=200)
    booking = push_one(keyed, django_capture_on_commit_callbacks)
    [call] = calls_for(created_delivery(booking))
    assert verify_by_hand(partner.signing_secret, call.request.headers, call.request.body)
    assert not verify_by_hand(
        "whsec_" + base64.b64encode(b"another secret of 24+ bytes").decode(),
        call.request.headers,
        call.request.body,
    )
    assert not verify_by_hand(
        partner.signing_secret, call.request.headers, call.request.body + b" "
    )


@responses.activate
def test_status_change_carries_previous_status_driver_and_sequence(
    keyed, partner, django_capture_on_commit_callbacks
):
    responses.post(HOOK, status=200)
    booking = push_one(keyed, django_capture_on_commit_callbacks)
    booking.refresh_from_db()
    before = (booking.status, booking.sequence)
    driver = fleet_driver(name="Asha Khan")

    with django_capture_on_commit_callbacks(execute=True):
        booking_status_change(
            booking=booking,
            to_status=BookingStatus.ACCEPTED,
            actor="test",
            driver=driver,
            vehicle=driver.vehicles.get(),
        )

    delivery = WebhookDelivery.objects.get(booking=booking, sequence=before[1] + 1)
    payload = json.loads(calls_for(delivery)[0].request.body)
    assert payload["type"] == "booking.status_changed"
    assert payload["data"]["status"] == "accepted"
    assert payload["data"]["previousStatus"] == before[0]
    assert payload["data"]["sequence"] == before[1] + 1
    assert payload["data"]["driver"]["name"] == "Asha K."
    assert payload["data"]["driver"]["vehicle"]["make"] == "Toyota"


@responses.activate
def test_during_rotation_each_message_carries_two_signatures(
    keyed, partner, django_capture_on_commit_callbacks
):
    responses.post(HOOK, status=200)
    old = partner.signing_secret
    new = partner.rotate_signing_secret()
    partner.save()

    booking = push_one(keyed, django_capture_on_commit_callbacks)

    [call] = calls_for(created_delivery(booking))
    headers, body = call.request.headers, call.request.body
    assert len(headers["webhook-signature"].split(" ")) == 2
    assert verify_by_hand(old, headers, body)
    assert verify_by_hand(new, headers, body)
    Webhook(old).verify(body, dict(headers))
    Webhook(new).verify(body, dict(headers))


@responses.activate
def test_receiver_down_then_back_is_retried_with_the_same_webhook_id(
    keyed, partner, django_capture_on_commit_callbacks
):
    # given a receiver that answers 503, then refuses connections, then recovers
    tries: Counter = Counter()

    def receiver(request):
        webhook_id = request.headers["webhook-id"]
        tries[webhook_id] += 1
        if tries[webhook_id] == 1:
            return (503, {}, "down for maintenance")
        if tries[webhook_id] == 2:
            raise requests.ConnectionError("connection refused")
        return (200, {}, "ok")

    responses.add_callback(responses.POST, HOOK, callback=receiver)

    with time_machine.travel(timezone.now(), tick=False) as traveller:
        booking = push_one(keyed, django_capture_on_commit_callbacks)
        delivery = created_delivery(booking)

        # the first failure waits ~5 s (with jitter), in the database
        assert delivery.status == WebhookDeliveryStatus.PENDING
        wait = delivery.next_attempt_at - timezone.now()
        assert timedelta(seconds=4) <= wait <= timedelta(seconds=6)
        webhook_deliveries_due_send()  # nothing is due yet
        assert delivery.attempts.count() == 1

        # the beat task finds it once due; the next wait is ~5 min
        traveller.shift(timedelta(seconds=6))
        assert webhook_deliveries_due_send() >= 1
        delivery.refresh_from_db()
        wait = delivery.next_attempt_at - timezone.now()
        assert timedelta(minutes=4, seconds=30) <= wait <= timedelta(minutes=5, seconds=30)

        traveller.shift(timedelta(minutes=6))
        webhook_deliveries_due_send()

    delivery.refresh_from_db()
    assert delivery.status == WebhookDeliveryStatus.DELIVERED
    attempts = list(delivery.attempts.values_list("status_code", "error"))
    assert [code for code, _ in attempts] == [503, None, 200]
    assert "connection refused" in attempts[1][1]
    calls = calls_for(delivery)
    assert len(calls) == 3
    assert len({call.request.body for call in calls}) == 1
    assert len({call.request.headers["webhook-timestamp"] for call in calls}) == 3
    for call in calls:
        assert verify_by_hand(partner.signing_secret, call.request.headers, call.request.body)


def test_schedule_is_the_standard_webhooks_one():
    assert [int(d.total_seconds()) for d in RETRY_SCHEDULE] == [
        5,
        300,
        1800,
        7200,
        18000,
        36000,
        50400,
        72000,
        86400,
    ]


@responses.activate
def test_retries_stop_after_the_last_scheduled_attempt(keyed, django_capture_on_commit_callbacks):
    responses.post(HOOK, status=500)
    with time_machine.travel(timezone.now(), tick=False) as traveller:
        delivery = created_delivery(push_one(keyed, django_capture_on_commit_callbacks))
        for wait in RETRY_SCHEDULE:
            traveller.shift(wait * 1.2)
            webhook_delivery_attempt(delivery_id=delivery.pk)

    delivery.refresh_from_db()
    assert delivery.status == WebhookDeliveryStatus.FAILED
    assert delivery.attempts.count() == 1 + len(RETRY_SCHEDULE)
    assert delivery.next_attempt_at is None


@responses.activate
def test_each_retry_waits_its_scheduled_time_within_the_jitter(
    keyed, django_capture_on_commit_callbacks
):
    # Given a receiver that always fails, and a delivery whose first attempt failed
    responses.post(HOOK, status=500)
    with time_machine.travel(timezone.now(), tick=False) as traveller:
        delivery = created_delivery(push_one(keyed, django_capture_on_commit_callbacks))
        for retry, wait in enumerate(RETRY_SCHEDULE, start=1):
            delivery.refresh_from_db()
            failed_at = delivery.attempts.latest("pk").attempted_at
            # Then the next attempt is set the scheduled wait after it, give or take 10%
            applied = delivery.next_attempt_at - failed_at
            assert wait * 0.9 <= applied <= wait * 1.1, (retry, applied, wait)
            # and is not made a moment before that
            traveller.move_to(failed_at + wait * 0.9 - timedelta(seconds=1))
            assert webhook_delivery_attempt(delivery_id=delivery.pk).status == "skipped"
            traveller.move_to(delivery.next_attempt_at)
            assert webhook_delivery_attempt(delivery_id=delivery.pk).attempt is not None

    delivery.refresh_from_db()
    assert delivery.attempts.count() == 1 + len(RETRY_SCHEDULE)
    assert delivery.status == WebhookDeliveryStatus.FAILED


@responses.activate
def test_410_disables_the_endpoint(keyed, partner, django_capture_on_commit_callbacks):
    responses.post(HOOK, status=410)

    booking = push_one(keyed, django_capture_on_commit_callbacks)

    partner.refresh_from_db()
    assert partner.webhook_disabled_at is not None
    assert created_delivery(booking).status == WebhookDeliveryStatus.FAILED
    assert len(responses.calls) == 1
    # later events are not delivered at all
    deliveries = WebhookDelivery.objects.count()
    booking.refresh_from_db()
    with django_capture_on_commit_callbacks(execute=True):
        booking_status_change(booking=booking, to_status="cancelled", actor="test")
    assert WebhookDelivery.objects.count() == deliveries
    assert len(responses.calls) == 1


@responses.activate
@override_settings(WEBHOOK_ALLOW_PRIVATE_NETWORKS=False)
@pytest.mark.parametrize(
    "url",
    [
        "http://127.0.0.1:8080/hook",
        "http://10.1.2.3/hook",
        "http://169.254.169.254/latest",
        "http://[::1]/hook",
        "http://192.168.0.10/hook",
        "ftp://partner.example/hook",
    ],
)
def test_private_and_loopback_urls_are_refused(
    keyed, partner, url, django_capture_on_commit_callbacks
):
    Account.objects.filter(pk=partner.pk).update(webhook_url=url)

    booking = push_one(keyed, django_capture_on_commit_callbacks)

    assert len(responses.calls) == 0
    delivery = created_delivery(booking)
    assert delivery.status == WebhookDeliveryStatus.FAILED
    assert delivery.attempts.get().error.startswith("Refused")


@responses.activate
def test_private_urls_are_allowed_when_the_setting_is_on(
    keyed, partner, django_capture_on_commit_callbacks
):
    Account.objects.filter(pk=partner.pk).update(webhook_url="http://127.0.0.1:9/hook")
    responses.post("http://127.0.0.1:9/hook", status=200)
    booking = push_one(keyed, django_capture_on_commit_callbacks)
    assert created_delivery(booking).status == WebhookDeliveryStatus.DELIVERED


def test_accounts_without_webhook_get_no_deliveries(
    api_client, make_account, django_capture_on_commit_callbacks
):
    quiet = make_account("partner", name="Quiet")
    api_client.credentials(HTTP_X_API_KEY=quiet.raw_key)
    push_one(api_client, django_capture_on_commit_callbacks)
    assert WebhookDelivery.objects.count() == 0


@responses.activate
def test_admin_redeliver_sends_again_with_the_same_id(
    keyed, admin_user, django_capture_on_commit_callbacks
):
    responses.post(HOOK, status=200)
    delivery = created_delivery(push_one(keyed, django_capture_on_commit_callbacks))
    request = RequestFactory().post("/admin/")
    request.user = admin_user
    request._messages = type("M", (), {"add": lambda *a, **k: None})()

    with django_capture_on_commit_callbacks(execute=True):
        WebhookDeliveryAdmin(WebhookDelivery, admin_site).redeliver(
            request, WebhookDelivery.objects.filter(pk=delivery.pk)
        )

    assert len(calls_for(delivery)) == 2
    assert WebhookAttempt.objects.filter(delivery=delivery).count() == 2


def test_admin_delivery_pages_render(admin_client, partner):
    response = admin_client.get("/admin/partners/webhookdelivery/?status=pending")
    assert response.status_code == 200
    response = admin_client.get(f"/admin/partners/account/{partner.pk}/change/")
    assert response.status_code == 200


def test_a_delivery_is_attempted_by_one_worker_only(keyed, partner):
    # given a delivery claimed by a worker (lease taken)
    with responses.RequestsMock() as mocked:
        mocked.post(HOOK, status=200)
        from bookings.models import BookingEvent
        from partners.services.webhooks import webhook_delivery_create

        booking = Booking.objects.create(
            reference="DTD-TESTONE1",
            source="partner",
            account=partner,
            job_ref="ONE",
            pickup="Leeds",
            dropoff="York",
            fare=10,
            pickup_time=timezone.now(),
        )
        event = BookingEvent.objects.create(
            booking=booking, sequence=1, type="booking.created", to_status="confirmed"
        )
        delivery = webhook_delivery_create(event=event)
        assert webhook_delivery_create(event=event) is None  # one per (account, event)

        first = webhook_delivery_attempt(delivery_id=delivery.pk)
        second = webhook_delivery_attempt(delivery_id=delivery.pk)

        assert first.status == WebhookDeliveryStatus.DELIVERED
        assert second.status == "skipped"
        assert len(mocked.calls) == 1


@responses.activate
def test_a_back_office_status_change_reaches_the_senders_webhook(
    keyed, partner, admin_client, django_capture_on_commit_callbacks
):
    # given a partner's booking, delivered as created
    responses.post(HOOK, status=200)
    booking = push_one(keyed, django_capture_on_commit_callbacks)
    booking.refresh_from_db()
    before = (booking.status, booking.sequence)
    # when the back office cancels it with the admin action
    with django_capture_on_commit_callbacks(execute=True):
        admin_client.post(
            "/admin/bookings/booking/",
            {
                "action": "status_change",
                "_selected_action": [booking.pk],
                "apply": "1",
                "to_status": "cancelled",
                "reason": "passenger phoned",
            },
        )
    # then the partner hears of it, with the next sequence number
    delivery = WebhookDelivery.objects.get(booking=booking, sequence=before[1] + 1)
    payload = json.loads(calls_for(delivery)[0].request.body)
    assert payload["type"] == "booking.cancelled"
    assert payload["data"]["previousStatus"] == before[0]
    assert payload["data"]["status"] == "cancelled"
