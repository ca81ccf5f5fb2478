"""The dispatcher (dispatch.relay): the booking row is the outbox, claimed and handed over."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from bookings.models import Booking, BookingStatus, DispatchQueue
from bookings.tests.factories import BookingFactory
from core.testing.places import LEEDS, north_of
from dispatch import relay
from dispatch.models import DispatchAttempt, Offer
from dispatch.services import offers
from drivers.tests.factories import driver_at

pytestmark = pytest.mark.django_db
INSTANT_URL = "/api/public/bookings/instant"


def instant_body() -> dict:
    return {
        "pickup_address": "Leeds station",
        "dropoff_address": "York",
        "passenger_name": "Ravi Singh",
        "passenger_phone_whatsapp": "+44 7700 900456",
        "passenger_count": 2,
    }


@pytest.fixture(autouse=True)
def _dispatcher_hands_over(settings):
    # What production does: web processes leave new bookings to the dispatcher.
    settings.DISPATCH_IN_PROCESS = False


class Recorder:
    """Stands in for the broker: records each published batch, or fails."""

    def __init__(self, *, fail: bool = False) -> None:
        self.batches: list[list[int]] = []
        self.fail = fail

    def __call__(self, booking_ids: list[int]) -> None:
        if self.fail:
            raise relay.BrokerError("broker unreachable")
        self.batches.append(list(booking_ids))


def test_a_new_booking_waits_for_the_dispatcher_and_is_handed_over_once():
    booking = BookingFactory()
    recorder = Recorder()

    assert relay.bookings_dispatch_claim(publish=recorder) == [booking.pk]
    assert relay.bookings_dispatch_claim(publish=recorder) == []

    assert recorder.batches == [[booking.pk]]
    booking.refresh_from_db()
    assert booking.dispatch_started_at is not None
    assert booking.status == BookingStatus.CONFIRMED  # the task does the rest


def test_a_failed_publish_leaves_the_bookings_waiting_for_the_next_pass():
    bookings = [BookingFactory(), BookingFactory()]

    with pytest.raises(relay.BrokerError):
        relay.bookings_dispatch_claim(publish=Recorder(fail=True))

    assert Booking.objects.filter(dispatch_started_at__isnull=True).count() == 2
    retry = Recorder()
    relay.bookings_dispatch_claim(publish=retry)
    assert retry.batches == [[b.pk for b in bookings]]


def test_operator_queue_cancelled_and_already_dispatched_bookings_are_not_claimed():
    BookingFactory(dispatch_queue=DispatchQueue.OPERATOR)
    BookingFactory(status=BookingStatus.CANCELLED)
    waiting = BookingFactory()
    dispatched = BookingFactory()
    offers.booking_dispatch_next(booking_id=dispatched.pk)  # no driver: it ends no_driver
    declined_back = BookingFactory(dispatch_started_at=timezone.now())  # confirmed again

    claimed = relay.bookings_dispatch_claim(publish=Recorder())

    assert claimed == [waiting.pk]
    assert declined_back.pk not in claimed


def test_claims_go_in_batches_until_nothing_waits():
    bookings = [BookingFactory() for _ in range(5)]
    recorder = Recorder()

    assert relay.bookings_dispatch_claim_all(limit=2, publish=recorder) == 5

    assert recorder.batches == [
        [bookings[0].pk, bookings[1].pk],
        [bookings[2].pk, bookings[3].pk],
        [bookings[4].pk],
    ]


def test_the_published_task_offers_the_booking(django_capture_on_commit_callbacks):
    # Eager Celery in tests: publishing runs the dispatch task itself.
    driver = driver_at(north_of(LEEDS, 1))
    booking = BookingFactory()

    with django_capture_on_commit_callbacks(execute=True):
        relay.bookings_dispatch_claim()

    offer = Offer.objects.get(booking=booking)
    assert offer.driver == driver
    booking.refresh_from_db()
    assert booking.status == BookingStatus.OFFERED


@pytest.mark.usefixtures("tariffs")
def test_in_process_dispatch_needs_no_dispatcher(
    settings, api_client, django_capture_on_commit_callbacks
):
    # The local configuration: the web process dispatches after commit, and the booking
    # is marked started so that a dispatcher run later does not take it again.
    settings.DISPATCH_IN_PROCESS = True
    driver_at(north_of(LEEDS, 1))

    with django_capture_on_commit_callbacks(execute=True):
        response = api_client.post(INSTANT_URL, instant_body(), format="json")

    assert response.status_code == 200, response.content
    booking = Booking.objects.get(reference=response.json()["booking_reference"])
    assert booking.status == BookingStatus.OFFERED
    assert booking.dispatch_started_at is not None
    assert relay.bookings_dispatch_claim(publish=Recorder()) == []


@pytest.mark.usefixtures("tariffs")
def test_with_a_dispatcher_the_web_request_leaves_the_booking_waiting(
    api_client, django_capture_on_commit_callbacks
):
    driver_at(north_of(LEEDS, 1))

    with django_capture_on_commit_callbacks(execute=True):
        response = api_client.post(INSTANT_URL, instant_body(), format="json")

    assert response.status_code == 200, response.content
    booking = Booking.objects.get(reference=response.json()["booking_reference"])
    assert booking.status == BookingStatus.CONFIRMED
    assert booking.dispatch_started_at is None
    recorder = Recorder()
    assert relay.bookings_dispatch_claim(publish=recorder) == [booking.pk]


# --- the sweep: bookings handed over whose task message was lost -----------------------
def test_the_sweep_starts_dispatch_for_a_booking_that_never_reached_it(
    settings, django_capture_on_commit_callbacks
):
    settings.DISPATCH_HANDOVER_GRACE_SECONDS = 120
    driver = driver_at(north_of(LEEDS, 1))
    # claimed by the dispatcher five minutes ago; its task never ran
    lost = BookingFactory(
        pickup_lat=LEEDS[0], pickup_lng=LEEDS[1], dispatch_started_at=timezone.now()
    )
    lost.created_at = lost.dispatch_opens_at = timezone.now() - timedelta(minutes=5)
    lost.save(update_fields=["created_at", "dispatch_opens_at"])

    with django_capture_on_commit_callbacks(execute=True):
        started = offers.bookings_dispatch_overdue()

    assert started == [lost.pk]
    offer = Offer.objects.get(booking=lost)
    assert offer.driver == driver
    lost.refresh_from_db()
    assert lost.status == BookingStatus.OFFERED


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
        booking.created_at = booking.dispatch_opens_at = created
        booking.save(update_fields=["created_at", "dispatch_opens_at"])

    assert offers.bookings_dispatch_overdue() == []
    assert not DispatchAttempt.objects.filter(booking=recent).exists()


def test_a_publish_the_broker_refuses_raises_so_the_claim_rolls_back(monkeypatch):
    """Tasks published from requests log a refused message (config.celery.PublishSafeTask);
    the dispatcher's must raise, or its claim would commit a booking nobody dispatches."""
    from celery import Task
    from kombu.exceptions import OperationalError

    from dispatch.tasks import booking_dispatch_start

    def broker_down(self, *args, **kwargs):
        raise OperationalError("connection refused")

    booking = BookingFactory()
    monkeypatch.setattr(Task, "apply_async", broker_down)
    conf = booking_dispatch_start.app.conf
    eager, conf.task_always_eager = conf.task_always_eager, False
    try:
        assert booking_dispatch_start.apply_async((1,)) is None  # a request's: logged
        with pytest.raises(OperationalError):
            relay.bookings_dispatch_claim()
    finally:
        conf.task_always_eager = eager
    booking.refresh_from_db()
    assert booking.dispatch_started_at is None  # still waiting, to be claimed again


@pytest.mark.usefixtures("tariffs")
def test_the_dispatch_task_carries_the_request_id_of_the_request_that_made_the_booking(
    api_client, django_capture_on_commit_callbacks
):
    """Contract 10.1: a booking's request id reaches the tasks it starts, also when the
    dispatcher (another process, with no request of its own) publishes them."""
    from core.request_ids import current_request_id
    from dispatch.tasks import booking_dispatch_start
    from operations.request_ids import TASK_HEADER

    driver_at(north_of(LEEDS, 1))
    with django_capture_on_commit_callbacks(execute=True):
        response = api_client.post(
            INSTANT_URL, instant_body(), format="json", HTTP_X_REQUEST_ID="trace-booking-25"
        )
    assert response.status_code == 200, response.content
    booking = Booking.objects.get(reference=response.json()["booking_reference"])
    assert booking.request_id == "trace-booking-25"

    app = booking_dispatch_start.app
    eager, app.conf.task_always_eager = app.conf.task_always_eager, False
    try:
        with app.connection_for_write() as conn:
            queue = conn.SimpleQueue("dispatch")
            while queue.qsize():
                queue.get(timeout=1).ack()
            assert relay.bookings_dispatch_claim() == [booking.pk]
            message = queue.get(timeout=2)
            message.ack()
    finally:
        app.conf.task_always_eager = eager

    assert message.headers[TASK_HEADER] == "trace-booking-25"
    assert (
        current_request_id() is None
    )  # the dispatcher serves under no request id between bookings
