"""What the operator tells a TOMP provider besides the driver's progress (the walk in
``tests/test_tomp_walk.py`` covers that): no driver, cancellations, a driver giving the
job back, a no-show; each shaped as the specification's request body for its path, sent
through the webhook machinery to a path under the provider's base URL."""

from __future__ import annotations

import json

import pytest
import responses
from django.utils import timezone

from bookings.models import BookingStatus
from bookings.services import booking_cancel, booking_status_change
from bookings.services.changes import booking_unassigned_record
from bookings.tests.factories import BookingFactory
from partners.intake_formats.tomp.tests.spec import assert_tomp
from partners.models import WebhookDelivery, WebhookDeliveryStatus
from partners.services.webhooks import webhook_delivery_attempt

pytestmark = pytest.mark.django_db

BASE = "https://maas.example/tomp/v1"
OPTION = "c0ffee"


@pytest.fixture
def provider(make_account):
    return make_account("partner", name="MaaS One", intake_format="tomp", webhook_url=BASE)


def tomp_booking(provider, status: str):
    return BookingFactory(account=provider, job_ref=f"TOMP-{OPTION}", status=status)


def sent(provider_api) -> list[tuple[str, dict]]:
    return [
        (call.request.path_url.removeprefix("/tomp/v1"), json.loads(call.request.body))
        for call in provider_api.calls
    ]


@pytest.fixture
def provider_api():
    with responses.RequestsMock(assert_all_requests_are_fired=False) as recorder:
        recorder.post(f"{BASE}/bookings/{OPTION}/events", status=200, json={})
        recorder.post(f"{BASE}/bookings/{OPTION}/notifications", status=204)
        yield recorder


def test_no_driver_before_the_window_closed_is_a_deny(
    provider, provider_api, django_capture_on_commit_callbacks
):
    # given a TOMP booking nobody could take
    booking = tomp_booking(provider, BookingStatus.NO_DRIVER)
    # when its dispatch window closes
    with django_capture_on_commit_callbacks(execute=True):
        booking_unassigned_record(booking=booking, actor="dispatch:window-closed", detail={})
    # then the provider is told the operator denies the postponed commit
    [(path, body)] = sent(provider_api)
    assert path == f"/bookings/{OPTION}/events"
    assert body == {"operation": "DENY", "origin": "TO"}
    assert_tomp(body, "bookingOperation")


def test_a_cancellation_by_the_operator_is_sent_but_the_providers_own_is_not(
    provider, provider_api, django_capture_on_commit_callbacks
):
    # given two TOMP bookings
    ours = tomp_booking(provider, BookingStatus.ACCEPTED)
    theirs = BookingFactory(account=provider, job_ref="TOMP-other", status="confirmed")
    # when the back office cancels one and the provider (through our door) the other
    with django_capture_on_commit_callbacks(execute=True):
        booking_cancel(booking=ours, actor="staff:desk")
        booking_cancel(booking=theirs, actor=f"account:{provider.slug}")
    # then only the operator's cancellation goes to the provider
    assert sent(provider_api) == [
        (f"/bookings/{OPTION}/events", {"operation": "CANCEL", "origin": "TO"})
    ]
    assert_tomp(sent(provider_api)[0][1], "bookingOperation")


def test_a_driver_giving_the_job_back_is_a_vehicle_not_available_notification(
    provider, provider_api, django_capture_on_commit_callbacks
):
    # given a TOMP booking a driver had accepted
    booking = tomp_booking(provider, BookingStatus.ACCEPTED)
    # when the driver gives it back and dispatch offers it again
    with django_capture_on_commit_callbacks(execute=True):
        booking_status_change(booking=booking, to_status=BookingStatus.CONFIRMED, actor="driver:1")
    # then the provider hears that the car will not come
    [(path, body)] = sent(provider_api)
    assert path == f"/bookings/{OPTION}/notifications"
    assert (body["type"], body["legId"]) == ("VEHICLE_NOT_AVAILABLE", OPTION)
    assert_tomp(body, "notification")


def test_a_no_show_is_a_user_no_show_notification(
    provider, provider_api, django_capture_on_commit_callbacks
):
    booking = tomp_booking(provider, BookingStatus.ARRIVED)
    with django_capture_on_commit_callbacks(execute=True):
        booking_status_change(booking=booking, to_status=BookingStatus.NO_SHOW, actor="driver:1")
    [(path, body)] = sent(provider_api)
    assert path == f"/bookings/{OPTION}/notifications"
    assert body["type"] == "USER_NO_SHOW"
    assert_tomp(body, "notification")


def test_a_tomp_provider_gets_no_partnerjob_webhooks_and_a_partnerjob_sender_no_tomp(
    provider, make_account, provider_api, django_capture_on_commit_callbacks
):
    # given a TOMP booking and a PartnerJob sender's booking whose jobRef looks like TOMP's
    native = make_account("partner", name="Native", webhook_url="https://native.example/hook")
    provider_api.post("https://native.example/hook", status=204)
    tomp = tomp_booking(provider, BookingStatus.OFFERED)
    look_alike = BookingFactory(account=native, job_ref=f"TOMP-{OPTION}", status="offered")
    # when both go back to waiting (no TOMP message for that) and then are cancelled
    with django_capture_on_commit_callbacks(execute=True):
        for booking in (tomp, look_alike):
            booking_status_change(booking=booking, to_status="confirmed", actor="dispatch")
            booking_cancel(booking=booking, actor="staff:desk")
    # then the provider got TOMP's CANCEL only, the native sender contract 5.1's two events
    deliveries = WebhookDelivery.objects.order_by("pk")
    assert [(d.account, d.event_type) for d in deliveries] == [
        (provider, "tomp.booking.CANCEL"),
        (native, "booking.status_changed"),
        (native, "booking.cancelled"),
    ]


def test_a_retry_goes_to_the_same_path_under_the_providers_current_base_url(
    provider, django_capture_on_commit_callbacks
):
    # given a provider whose API was down when the operator cancelled
    booking = tomp_booking(provider, BookingStatus.CONFIRMED)
    with responses.RequestsMock() as down:
        down.post(f"{BASE}/bookings/{OPTION}/events", status=503)
        with django_capture_on_commit_callbacks(execute=True):
            booking_cancel(booking=booking, actor="staff:desk")
    delivery = WebhookDelivery.objects.get()
    assert delivery.status == WebhookDeliveryStatus.PENDING
    # when it moved its API and the retry falls due
    provider.webhook_url = "https://new.maas.example/tomp"
    provider.save(update_fields=["webhook_url"])
    WebhookDelivery.objects.filter(pk=delivery.pk).update(next_attempt_at=timezone.now())
    with responses.RequestsMock() as moved:
        moved.post(f"https://new.maas.example/tomp/bookings/{OPTION}/events", status=200)
        webhook_delivery_attempt(delivery_id=delivery.pk)
        # then the same message went to the same path under the new base URL
        [call] = moved.calls
        assert call.request.headers["Api"] == "TOMP"
        assert call.request.headers["webhook-id"] == delivery.webhook_id
    delivery.refresh_from_db()
    assert delivery.status == WebhookDeliveryStatus.DELIVERED
