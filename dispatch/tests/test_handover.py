"""Handing committed bookings to dispatch: batched off the request path, never lost."""

from __future__ import annotations

import threading
import time
from datetime import timedelta

import pytest
from django.utils import timezone

from bookings.models import BookingStatus, DispatchQueue
from bookings.tests.factories import BookingFactory
from dispatch.handover import Handover
from dispatch.models import DispatchAttempt, Offer
from dispatch.services import offers
from drivers.tests.factories import driver_at
from tests.places import LEEDS, north_of


class Recorder:
    """A publish function that records each message's ids and the thread that sent it
    (and can fail on demand)."""

    def __init__(self, fail: bool = False) -> None:
        self.messages: list[list[int]] = []
        self.threads: list[str] = []
        self.fail = fail

    def __call__(self, ids: list[int]) -> None:
        if self.fail:
            raise ConnectionError("broker down")
        self.messages.append(list(ids))
        self.threads.append(threading.current_thread().name)


def wait_for(condition, timeout: float = 2.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.005)


def test_without_a_window_each_booking_is_published_at_once_on_the_callers_thread():
    recorder = Recorder()
    handover = Handover(recorder, window_seconds=0)

    handover.submit(1)
    handover.submit(2)

    assert recorder.messages == [[1], [2]]


def test_a_request_that_finishes_after_a_window_publishes_the_batch_on_its_thread():
    recorder = Recorder()
    handover = Handover(recorder, window_seconds=0.05)

    for booking_id in (1, 2, 3):
        handover.submit(booking_id)
    handover.publish_due()  # the window has not passed: nothing yet
    assert recorder.messages == []
    time.sleep(0.06)
    handover.publish_due()

    assert recorder.messages == [[1, 2, 3]]
    assert recorder.threads == [threading.current_thread().name]


@pytest.mark.django_db
def test_the_end_of_any_request_publishes_the_processs_overdue_batch(client, monkeypatch):
    from dispatch import handover as module

    recorder = Recorder()
    handover = Handover(recorder, window_seconds=0.01)
    monkeypatch.setattr(module, "_handover", handover)
    monkeypatch.setattr(module, "FALLBACK_WINDOWS", 10_000)  # the thread stays out of it
    handover.submit(5)
    time.sleep(0.02)

    client.get("/healthz")

    assert recorder.messages == [[5]]
    assert recorder.threads == [threading.current_thread().name]


def test_in_a_lull_the_thread_publishes_what_no_request_picked_up():
    recorder = Recorder()
    handover = Handover(recorder, window_seconds=0.02)

    handover.submit(1)
    handover.submit(2)
    # Nothing is published on the caller's thread.
    assert recorder.messages == []
    wait_for(lambda: recorder.messages)

    assert recorder.messages == [[1, 2]]
    assert recorder.threads == ["dispatch-handover"]


def test_a_quiet_spell_ends_the_batch():
    recorder = Recorder()
    handover = Handover(recorder, window_seconds=0.01)

    handover.submit(1)
    wait_for(lambda: recorder.messages)
    handover.submit(2)
    wait_for(lambda: len(recorder.messages) == 2)

    assert recorder.messages == [[1], [2]]


def test_flush_publishes_what_is_queued_a_message_per_hundred():
    recorder = Recorder()
    handover = Handover(recorder, window_seconds=60)
    for booking_id in range(1, 151):
        handover.submit(booking_id)

    handover.flush()

    assert [len(ids) for ids in recorder.messages] == [100, 50]
    assert sum(recorder.messages, []) == list(range(1, 151))
    handover.flush()
    assert len(recorder.messages) == 2  # nothing published twice


def test_a_broker_failure_is_logged_not_raised(caplog):
    handover = Handover(Recorder(fail=True), window_seconds=0)

    handover.submit(7)

    assert "dispatch handover of bookings [7] failed" in caplog.text


# --- the sweep: bookings whose handover was lost ----------------------------------------


@pytest.mark.django_db
def test_the_sweep_starts_dispatch_for_a_booking_that_never_reached_it(
    settings, django_capture_on_commit_callbacks
):
    settings.DISPATCH_HANDOVER_GRACE_SECONDS = 120
    driver = driver_at(north_of(LEEDS, 1))
    lost = BookingFactory(pickup_lat=LEEDS[0], pickup_lng=LEEDS[1])
    lost.created_at = timezone.now() - timedelta(minutes=5)
    lost.save(update_fields=["created_at"])

    with django_capture_on_commit_callbacks(execute=True):
        started = offers.bookings_dispatch_overdue()

    assert started == [lost.pk]
    offer = Offer.objects.get(booking=lost)
    assert offer.driver == driver
    lost.refresh_from_db()
    assert lost.status == BookingStatus.OFFERED


@pytest.mark.django_db
def test_the_sweep_leaves_recent_dispatched_operator_and_old_bookings_alone(settings):
    settings.DISPATCH_HANDOVER_GRACE_SECONDS = 120
    minutes_ago = timezone.now() - timedelta(minutes=5)
    recent = BookingFactory()  # its handover may still be on its way
    dispatched = BookingFactory()
    DispatchAttempt.objects.create(booking=dispatched, outcome="searched", tier=1)
    operator_job = BookingFactory(dispatch_queue=DispatchQueue.OPERATOR)
    too_old = BookingFactory()
    cancelled = BookingFactory(status=BookingStatus.CANCELLED)
    for booking, created in [
        (dispatched, minutes_ago),
        (operator_job, minutes_ago),
        (too_old, timezone.now() - timedelta(days=2)),
        (cancelled, minutes_ago),
    ]:
        booking.created_at = created
        booking.save(update_fields=["created_at"])

    assert offers.bookings_dispatch_overdue() == []
    assert not DispatchAttempt.objects.filter(booking=recent).exists()
