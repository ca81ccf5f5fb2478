"""Recovering after an outage (contract 4.2, issue 17): a sender whose endpoint was down
asks "what changed since yesterday" and gets each job's state with the same sequence
number its webhooks carry, page by page, without losing a job that changes mid-walk."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest
import responses
import time_machine
from django.utils import timezone
from rest_framework.test import APIClient

from bookings.models import Booking, BookingStatus
from bookings.services import booking_status_change
from partners.models import WebhookDelivery
from partners.tests.factories import partner_job

HOOK = "https://partner.example/hooks/down"
URL = "/api/public/v1/jobs"

pytestmark = pytest.mark.django_db


@pytest.fixture
def partner(make_account):
    return make_account("partner", name="Outage Co", webhook_url=HOOK)


@pytest.fixture
def keyed(partner):
    client = APIClient()
    client.credentials(HTTP_X_API_KEY=partner.raw_key)
    return client


def push(client, jobs, capture) -> list[Booking]:
    with capture(execute=True):
        response = client.post(URL, data=json.dumps(jobs), content_type="application/json")
    assert response.status_code == 200, response.content
    refs = [r["bookingReference"] for r in response.json()["results"]]
    return [Booking.objects.get(reference=ref) for ref in refs]


def walk(client, since) -> list[dict]:
    seen, url, params = [], URL, {"updatedSince": since.isoformat()}
    while url:
        body = client.get(url, params).json()
        seen += body["results"]
        url, params = body["next"], None
    return seen


@responses.activate
def test_after_an_outage_the_feed_gives_each_jobs_state_and_its_webhook_sequence(
    keyed, django_capture_on_commit_callbacks
):
    # given an endpoint that is down while the jobs are created and move on
    responses.post(HOOK, status=503)
    since = timezone.now() - timedelta(seconds=1)
    first, second = push(
        keyed,
        [partner_job(jobRef="OUT-1"), partner_job(jobRef="OUT-2")],
        django_capture_on_commit_callbacks,
    )
    with django_capture_on_commit_callbacks(execute=True):
        booking_status_change(booking=first, to_status=BookingStatus.CANCELLED, actor="test")
    assert WebhookDelivery.objects.filter(delivered_at__isnull=False).count() == 0

    # when the sender asks what changed since before the outage
    feed = {job["jobRef"]: job for job in walk(keyed, since)}

    # then it gets each job's current state, with the sequence of the job's last webhook
    assert set(feed) == {"OUT-1", "OUT-2"}
    assert feed["OUT-1"]["status"] == "cancelled"
    for job_ref, booking in (("OUT-1", first), ("OUT-2", second)):
        booking.refresh_from_db()
        last_webhook = WebhookDelivery.objects.filter(booking=booking).order_by("-sequence")[0]
        assert feed[job_ref]["sequence"] == booking.sequence == last_webhook.sequence
        assert json.loads(last_webhook.body)["data"]["sequence"] == feed[job_ref]["sequence"]


def test_a_job_that_changes_during_the_walk_comes_again_at_the_end(
    keyed, monkeypatch, django_capture_on_commit_callbacks
):
    from partners.services import reconciliation

    monkeypatch.setattr(reconciliation, "FEED_PAGE_SIZE", 2)
    since = timezone.now() - timedelta(seconds=1)
    bookings = push(
        keyed, [partner_job(jobRef=f"W-{i}") for i in range(4)], django_capture_on_commit_callbacks
    )

    page = keyed.get(URL, {"updatedSince": since.isoformat()}).json()
    assert [job["jobRef"] for job in page["results"]] == ["W-0", "W-1"]
    # W-0, already read, is cancelled (a later instant) before the next page is asked for
    with time_machine.travel(timezone.now() + timedelta(seconds=1)):
        booking_status_change(booking=bookings[0], to_status=BookingStatus.CANCELLED, actor="test")
    rest = []
    url = page["next"]
    while url:
        body = keyed.get(url).json()
        rest += body["results"]
        url = body["next"]

    assert [job["jobRef"] for job in rest] == ["W-2", "W-3", "W-0"]
    assert rest[-1]["status"] == "cancelled"
