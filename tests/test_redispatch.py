"""Re-dispatch (contract 3.1 and 5.1, issue 34): a booking without a driver is offered again
while its dispatch window is open (a driver frees up, comes online, the schedule comes
round), never to a driver who declined it; when the window closes with no driver, the
passenger and the sender (``booking.unassigned`` with dispatch's reasons) are told at once
and the booking waits on the desk's queue."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest
import responses
import time_machine
from django.conf import settings as django_settings
from django.contrib.auth import get_user_model
from django.core import mail
from django.utils import timezone

from bookings.models import Booking, BookingStatus
from bookings.tests.factories import BookingFactory
from core.testing.places import LEEDS, north_of
from dispatch.models import DispatchAttempt, Offer, OfferStatus
from dispatch.periodic import PeriodicTasks
from dispatch.services import offers, redispatch
from dispatch.tests.factories import jobs_held
from drivers.tests.factories import driver_at
from partners.models import WebhookDelivery

pytestmark = pytest.mark.django_db

HOOK = "https://sender.example/hooks/taxi"
PASSENGER = "grace.hopper@example.co.uk"


@pytest.fixture
def run(django_capture_on_commit_callbacks):
    def call(step, **kwargs):
        with django_capture_on_commit_callbacks(execute=True):
            return step(**kwargs)

    return call


def _open_offer(booking) -> Offer | None:
    return Offer.objects.filter(booking=booking, status=OfferStatus.OPEN).first()


@responses.activate
def test_a_booking_nobody_took_is_offered_again_and_handed_to_a_human_when_its_window_closes(
    run, make_account, settings, client
):
    settings.ADMINS = [("Desk", "desk@example.co.uk")]
    responses.post(HOOK, status=204)
    partner = make_account("partner", name="Acme Travel", webhook_url=HOOK)
    pickup_time = timezone.now() + timedelta(minutes=10)
    booking = BookingFactory(
        account=partner, job_ref="ACME-1", passenger_email=PASSENGER, pickup_time=pickup_time
    )
    asha = driver_at(north_of(LEEDS, 1), name="Asha Khan")
    # given Asha is offered the booking and declines it, with nobody else about
    run(offers.booking_dispatch_next, booking_id=booking.pk)
    run(offers.offer_decline, offer_id=_open_offer(booking).pk, driver=asha)
    booking.refresh_from_db()
    assert booking.status == BookingStatus.NO_DRIVER
    # when the schedule comes round, Asha is not asked again and nothing is written
    rows = DispatchAttempt.objects.count()
    assert run(redispatch.bookings_redispatch).offered == 0
    assert DispatchAttempt.objects.count() == rows
    # when another driver comes free (a job of theirs ends) and the schedule comes round
    tom = driver_at(north_of(LEEDS, 3), name="Tom Price", max_jobs=1)
    [held] = jobs_held(tom, 1, pickup_time=timezone.now() - timedelta(minutes=5))
    assert run(redispatch.bookings_redispatch).offered == 0
    run(offers.driver_job_release, booking_id=held.booking_id)
    assert run(redispatch.bookings_redispatch).offered == 1
    # then it is offered to Tom, not to Asha
    assert _open_offer(booking).driver == tom
    # when Tom lets it time out, it waits again; Tom is not asked again by the schedule
    offer = _open_offer(booking)
    with time_machine.travel(offer.expires_at + timedelta(seconds=1), tick=False):
        run(offers.offer_expire, offer_id=offer.pk)
        run(redispatch.bookings_redispatch)
    booking.refresh_from_db()
    assert booking.status == BookingStatus.NO_DRIVER
    assert _open_offer(booking) is None
    assert booking.unassigned_at is None  # the window is still open: not final
    assert mail.outbox == []

    # when the window closes (DISPATCH_GIVE_UP_AFTER_PICKUP_MINUTES after the pickup)
    closes = pickup_time + timedelta(minutes=django_settings.DISPATCH_GIVE_UP_AFTER_PICKUP_MINUTES)
    with time_machine.travel(closes + timedelta(seconds=1), tick=False):
        result = run(redispatch.bookings_redispatch)
        again = run(redispatch.bookings_redispatch)
    assert (result.unassigned, again.unassigned) == (1, 0)
    booking.refresh_from_db()
    assert booking.unassigned_at is not None
    # then the sender's webhook gets booking.unassigned with the reasons dispatch recorded
    delivery = WebhookDelivery.objects.get(booking=booking, event_type="booking.unassigned")
    data = json.loads(delivery.body)["data"]
    assert data["status"] == "no_driver"
    reasons = {r["reason"]: r["count"] for r in data["reasons"]}
    assert reasons["declined"] == 1
    assert reasons["expired"] == 1
    sent = [json.loads(c.request.body) for c in responses.calls if c.request.url == HOOK]
    assert "booking.unassigned" in [body["type"] for body in sent]
    # and the passenger and the desk are told by email, once
    to_passenger = [m for m in mail.outbox if m.to == [PASSENGER]]
    assert len(to_passenger) == 1
    assert booking.reference in to_passenger[0].subject
    assert "/cancel/" in to_passenger[0].body
    assert len([m for m in mail.outbox if "desk@example.co.uk" in m.to]) == 1
    # and it waits on the desk's queue of jobs that need a human
    staff = get_user_model().objects.create_superuser("desk", "desk@example.co.uk", "pw")
    client.force_login(staff)
    queue = client.get("/admin/dispatch/dispatchbooking/?needs_human=yes").content.decode()
    assert booking.reference in queue
    # and the schedule no longer offers it by itself
    driver_at(north_of(LEEDS, 2), name="Priya Shah")
    with time_machine.travel(closes + timedelta(minutes=1), tick=False):
        assert run(redispatch.bookings_redispatch).offered == 0


def test_a_driver_coming_online_is_offered_it_but_not_after_the_window(run):
    booking = BookingFactory(pickup_time=timezone.now())
    run(offers.booking_dispatch_next, booking_id=booking.pk)
    late = BookingFactory(pickup_time=timezone.now() - timedelta(hours=1))
    Booking.objects.filter(pk=late.pk).update(status=BookingStatus.NO_DRIVER)
    driver = driver_at(north_of(LEEDS, 1))
    run(offers.no_driver_bookings_retry, driver_id=driver.pk)
    assert _open_offer(booking).driver == driver
    assert _open_offer(late) is None


def test_the_schedule_is_a_beat_entry_the_embedded_dispatcher_runs_too(run):
    entry = django_settings.CELERY_BEAT_SCHEDULE["dispatch-redispatch"]
    assert entry["task"] == "dispatch.tasks.bookings_redispatch"
    assert entry["schedule"] == django_settings.DISPATCH_REDISPATCH_EVERY_SECONDS
    booking = BookingFactory(pickup_time=timezone.now() + timedelta(minutes=5))
    run(offers.booking_dispatch_next, booking_id=booking.pk)
    start = timezone.now()
    periodic = PeriodicTasks(now=start)
    driver = driver_at(north_of(LEEDS, 1))
    later = start + timedelta(seconds=django_settings.DISPATCH_REDISPATCH_EVERY_SECONDS + 1)
    with time_machine.travel(later, tick=False):
        ran = run(periodic.run_due, now=later)
    assert "dispatch-redispatch" in ran
    assert _open_offer(booking).driver == driver
