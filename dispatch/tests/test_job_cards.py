"""Job cards through the real Twilio client, with its HTTP recorded (no network)."""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal
from urllib.parse import urlparse

import pytest
import time_machine
from django.core import signing

from bookings.tests.factories import BookingFactory
from core.testing.places import LEEDS
from dispatch import notifications, tasks
from dispatch.links import offer_id_from_token
from dispatch.models import NotificationLog
from dispatch.notifications import JobCardSendError
from dispatch.services import job_cards, offers
from dispatch.tests.twilio_recorder import RecordingTwilioHttpClient
from drivers.tests.factories import driver_at

pytestmark = pytest.mark.django_db


@pytest.fixture
def twilio(settings, monkeypatch):
    settings.NOTIFICATION_BACKEND = "twilio"
    settings.TWILIO_ACCOUNT_SID = "AC" + "1" * 32
    settings.TWILIO_AUTH_TOKEN = "token"
    settings.TWILIO_SMS_FROM = "+447700900999"
    settings.TWILIO_WHATSAPP_FROM = "+14155238886"
    recorder = RecordingTwilioHttpClient()
    monkeypatch.setattr(notifications, "twilio_http_client", lambda: recorder)
    return recorder


@pytest.fixture
def offered(django_capture_on_commit_callbacks):
    driver_at(LEEDS, phone="+447700900321")
    booking = BookingFactory(
        reference="DTD-CARD0001",
        pickup="Leeds station",
        dropoff="York",
        passengers=2,
        passenger_name="Asha Khan",
        passenger_phone="+447700900555",
    )
    with django_capture_on_commit_callbacks(execute=True):
        offer = offers.booking_dispatch_next(booking_id=booking.pk)
    return offer


def test_job_card_goes_out_by_sms_and_whatsapp_through_twilio(twilio, offered):
    # then the real client posted two messages to the Messages resource of our account
    assert len(twilio.requests) == 2
    by_to = {r["data"]["To"]: r for r in twilio.requests}
    sms, whatsapp = by_to["+447700900321"], by_to["whatsapp:+447700900321"]
    for request in (sms, whatsapp):
        assert request["method"] == "POST"
        assert (
            request["uri"]
            == f"https://api.twilio.com/2010-04-01/Accounts/{'AC' + '1' * 32}/Messages.json"
        )
        assert request["auth"] == ("AC" + "1" * 32, "token")
    assert sms["data"]["From"] == "+447700900999"
    assert whatsapp["data"]["From"] == "whatsapp:+14155238886"
    # and the card names the job but not the passenger (shown only after accept)
    body = sms["data"]["Body"]
    assert "DTD-CARD0001" in body
    assert "Leeds station" in body
    assert "York" in body
    assert "2 pax" in body
    assert "GBP 38.20" in body
    assert "Asha" not in body
    assert "+447700900555" not in body
    # and carries a signed link to this offer's accept/decline page
    link = next(
        word for word in body.split() if word.startswith("https://taxi.example/dispatch/offers/")
    )
    token = urlparse(link).path.split("/")[-2]
    assert offer_id_from_token(token) == offered.pk
    # and each message is logged with the provider's sid and its pass-through cost
    logs = {log.channel: log for log in NotificationLog.objects.filter(offer=offered)}
    assert logs["sms"].provider_sid.startswith("SM")
    assert logs["sms"].status == "sent"
    assert logs["sms"].cost_gbp == Decimal("0.02")
    assert logs["whatsapp"].cost_gbp == Decimal("0.00")
    assert logs["sms"].driver == offered.driver
    assert logs["sms"].booking == offered.booking
    assert logs["sms"].body == body


def test_same_card_is_never_sent_twice_for_one_offer(twilio, offered):
    # when the task runs again (a redelivered message)
    job_cards.job_card_send(offer_id=offered.pk, channel="sms")
    job_cards.job_card_send(offer_id=offered.pk, channel="whatsapp")
    # then nothing new goes out and there is still one log row per channel
    assert len(twilio.requests) == 2
    assert NotificationLog.objects.filter(offer=offered).count() == 2


def test_failed_send_is_retried_and_logged_once(twilio, django_capture_on_commit_callbacks):
    # given Twilio fails the first request with a 500
    twilio.failures = 1
    driver_at(LEEDS)
    booking = BookingFactory()
    with django_capture_on_commit_callbacks(execute=True):
        offer = offers.booking_dispatch_next(booking_id=booking.pk)
    # then the failed card is logged as failed, the other channel's card went out all the
    # same, and the task asked Celery for a retry
    failed = NotificationLog.objects.get(offer=offer, status="failed")
    assert failed.attempts == 1
    assert "500" in failed.error
    assert failed.cost_gbp == Decimal("0.00")
    assert NotificationLog.objects.filter(offer=offer, status="sent").count() == 1
    assert len(twilio.requests) == 2
    assert JobCardSendError in tasks.job_cards_send.autoretry_for
    # when the retry runs (eager Celery does not re-run it by itself)
    tasks.job_cards_send.apply(args=(offer.pk,))
    # then that card went out on the second attempt: three requests, one log row each
    assert len(twilio.requests) == 3
    failed.refresh_from_db()
    assert (failed.status, failed.attempts) == ("sent", 2)
    assert NotificationLog.objects.filter(offer=offer).count() == 2


def test_tampered_link_is_rejected():
    with pytest.raises(signing.BadSignature):
        offer_id_from_token("12:abc:def")


def test_a_card_whose_send_task_was_lost_is_sent_by_the_sweep(twilio, settings):
    # The offer commits, but its job-card messages never reach a worker (a worker killed,
    # Redis restarted): nothing was captured, so no card was written.
    driver_at(LEEDS, phone="+447700900321")
    booking = BookingFactory(reference="DTD-CARD0002", pickup="Leeds station", dropoff="York")
    offer = offers.booking_dispatch_next(booking_id=booking.pk)
    settings.DISPATCH_JOB_CARD_GRACE_SECONDS = 30
    later = offer.created_at + timedelta(seconds=31)

    assert job_cards.job_cards_overdue(now=offer.created_at) == []

    job_cards.job_card_send(offer_id=offer.pk, channel="sms")
    with time_machine.travel(later, tick=False):
        assert tasks.job_cards_send_overdue() == 1
        # Written when swept: however deep the queue, the next sweep does not pick it again.
        assert tasks.job_cards_send_overdue() == 0
    # The lost task turning up late sends nothing more.
    job_cards.job_card_send(offer_id=offer.pk, channel="whatsapp")
    assert NotificationLog.objects.filter(offer=offer, status="sent").count() == 2
    assert len(twilio.requests) == 2
