"""Job cards through the real Twilio client, with its HTTP recorded (no network)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from datetime import timedelta
from decimal import Decimal
from itertools import count
from urllib.parse import urlparse

import pytest
import time_machine
from django.core import signing
from django.db import OperationalError, connection
from django.test.utils import CaptureQueriesContext

from billing.models import SmsUsage
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

    assert list(job_cards.job_cards_overdue(now=offer.created_at)) == []

    job_cards.job_card_send(offer_id=offer.pk, channel="sms")
    with time_machine.travel(later, tick=False):
        assert tasks.job_cards_send_overdue() == 1
        # Written when swept: however deep the queue, the next sweep does not pick it again.
        assert tasks.job_cards_send_overdue() == 0
    # The lost task turning up late sends nothing more.
    job_cards.job_card_send(offer_id=offer.pk, channel="whatsapp")
    assert NotificationLog.objects.filter(offer=offer, status="sent").count() == 2
    assert len(twilio.requests) == 2


@contextmanager
def _database_gone_once(statement: str, *, skip: int = 0) -> Iterator[list[str]]:
    """The SQL statement that is the ``skip``-th after the first to contain ``statement``
    fails as it does when PostgreSQL restarts under the worker (fast shutdown: the
    connection dropped); the others run."""
    failed: list[str] = []
    seen = count()

    def execute(run, sql, params, many, context):
        if not failed and statement in sql and next(seen) == skip:
            failed.append(sql)
            raise OperationalError("terminating connection due to administrator command")
        return run(sql, params, many, context)

    with connection.execute_wrapper(execute):
        yield failed


@pytest.fixture
def offer_cards_unsent(monkeypatch):
    """An offer whose job-card task has not run yet (or was lost): none of its cards
    written."""
    driver_at(LEEDS, phone="+447700900321")
    with monkeypatch.context() as lost:
        lost.setattr(tasks.job_cards_send, "apply_async", lambda *args, **kwargs: None)
        offer = offers.booking_dispatch_next(booking_id=BookingFactory().pk)
    assert not NotificationLog.objects.filter(offer=offer).exists()
    return offer


# A worker runs a task outside any transaction: so do these, or the test's own would turn
# the first failed query into a broken transaction that no real worker has.
@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize(
    "statement",
    [
        # before anything is sent: the card is certainly not out, the task must retry
        pytest.param('INSERT INTO "dispatch_notificationlog"', id="writing-the-card"),
        # the SMS accepted by the provider, its outcome not written: it must not go again
        pytest.param('UPDATE "dispatch_notificationlog" SET "status"', id="recording-it-sent"),
    ],
)
def test_a_card_task_the_database_goes_away_under_sends_each_card_once_when_it_is_back(
    twilio, offer_cards_unsent, statement
):
    # given an offer whose card task meets the database gone (PostgreSQL restarted)
    offer = offer_cards_unsent
    with _database_gone_once(statement) as failed:
        # when the task runs (eagerly, not raising: a retry then runs at once)
        result = tasks.job_cards_send.apply(args=(offer.pk,), throw=False)
    # then it was retried rather than dropped, each card went out once and is recorded as
    # sent (its provider id, the SMS billed once)
    assert failed
    assert result.successful(), result.result
    assert len(twilio.requests) == 2
    sms = NotificationLog.objects.get(offer=offer, channel="sms")
    assert (sms.status, sms.attempts) == ("sent", 1)
    assert sms.provider_sid.startswith("SM")
    assert sms.sent_at is not None
    assert SmsUsage.objects.filter(reference=f"job-card:{sms.pk}").count() == 1
    assert NotificationLog.objects.get(offer=offer, channel="whatsapp").status == "sent"


@pytest.mark.django_db(transaction=True)
def test_a_card_the_sweep_wrote_is_sent_even_when_the_database_goes_before_it_ends(
    twilio, settings, offer_cards_unsent
):
    # given an offer whose job-card task was lost (no card written)
    offer = offer_cards_unsent
    settings.DISPATCH_JOB_CARD_GRACE_SECONDS = 0
    # when the sweep writes the SMS card, and the database goes before its WhatsApp query
    with _database_gone_once("EXISTS(SELECT", skip=1) as failed:
        result = tasks.job_cards_send_overdue.apply(throw=False)
    # then the card it wrote went out (a card written pending is never swept again)
    assert failed
    assert not result.successful()
    sms = NotificationLog.objects.get(offer=offer, channel="sms")
    assert sms.status == "sent"
    assert len(twilio.requests) == 1
    # and the next sweep writes and sends the other one
    assert tasks.job_cards_send_overdue() == 1
    assert NotificationLog.objects.filter(offer=offer, status="sent").count() == 2


@pytest.mark.django_db(transaction=True)
def test_a_worker_writes_each_card_in_one_statement_and_a_duplicate_leaves_it_as_it_was(
    twilio, offer_cards_unsent
):
    # given an offer whose card task runs in a worker (autocommit, no transaction)
    offer = offer_cards_unsent
    with CaptureQueriesContext(connection) as queries:
        job_cards.job_cards_send(offer_id=offer.pk)
    # then each card's row is one INSERT that commits alone: no BEGIN or savepoint round it
    # (issue 41: two statements fewer per card), and both cards went out once
    statements = [q["sql"] for q in queries.captured_queries]
    inserts = [
        n
        for n, sql in enumerate(statements)
        if sql.startswith('INSERT INTO "dispatch_notificationlog"')
    ]
    assert len(inserts) == 2
    for n in inserts:
        assert not statements[n - 1].startswith(("BEGIN", "SAVEPOINT")), statements[n - 1]
        assert not statements[n + 1].startswith(("COMMIT", "RELEASE")), statements[n + 1]
    logs = {log.channel: log for log in NotificationLog.objects.filter(offer=offer)}
    assert {c: (log.status, log.attempts) for c, log in logs.items()} == {
        "sms": ("sent", 1),
        "whatsapp": ("sent", 1),
    }
    # when the task runs again (a redelivered message): the INSERTs fail on the unique
    # (offer, channel) outside any transaction, and nothing is sent or changed
    job_cards.job_cards_send(offer_id=offer.pk)
    assert len(twilio.requests) == 2
    assert not connection.in_atomic_block
    again = {log.channel: log for log in NotificationLog.objects.filter(offer=offer)}
    assert {c: (log.pk, log.status, log.attempts) for c, log in again.items()} == {
        c: (log.pk, log.status, log.attempts) for c, log in logs.items()
    }
