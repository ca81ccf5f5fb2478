"""The retention job (issue 39): the clock moved past each period finds each kind of record
minimised or deleted as the schedule says; records under a hold remain; the job is safe
to run twice; the statutory export and the payment records still work."""

from __future__ import annotations

import csv
import datetime as dt
import io
import threading
import time
from decimal import Decimal

import pytest
import time_machine
from dateutil.relativedelta import relativedelta
from django.contrib.auth import get_user_model
from django.test import override_settings
from django.utils import timezone
from oauth2_provider.models import get_application_model, get_grant_model

from agents.models import SignInCode
from bookings.models import Booking, EmailConfirmation, Passenger
from bookings.tests.factories import (
    BookingEventFactory,
    BookingFactory,
    PassengerFactory,
    PaymentRecordFactory,
)
from core.testing.places import LEEDS, LONDON
from dispatch.models import NotificationLog
from drivers.models import PositionSample
from drivers.tests.factories import DriverFactory
from guards.models import ScreeningRejection
from partners.models import SupportRequest, WebhookAttempt, WebhookDelivery
from partners.tests.factories import AccountFactory
from privacy.models import Hold, HoldReason, StaffView
from privacy.schedule import booking_record_months, retention_schedule
from privacy.services.retention import APPLIERS, CONTACT_FIELDS, retention_apply

pytestmark = pytest.mark.django_db

CHORLEY = (53.6530, -2.6320)


def _booking(at: tuple[float, float], pickup_time: dt.datetime, **fields) -> Booking:
    return BookingFactory(
        pickup_lat=at[0],
        pickup_lng=at[1],
        pickup_time=pickup_time,
        status="completed",
        notes="Ring the bell",
        flight_number="",
        **fields,
    )


def _contact(booking: Booking) -> dict:
    booking.refresh_from_db()
    return {name: getattr(booking, name) for name in CONTACT_FIELDS}


def test_every_kind_in_the_schedule_is_applied_or_says_who_applies_it():
    applied = set(APPLIERS)
    for item in retention_schedule():
        assert (item.key in applied) or item.key in {
            "invoices",
            "payment_methods",
            "request_logs",
        }, item.key
        assert item.purpose
        assert item.lawful_basis
        assert item.kept
        assert item.at_the_end
    assert applied <= {item.key for item in retention_schedule()}


def test_the_authority_periods_come_from_the_data_with_the_default_elsewhere():
    assert booking_record_months("E09000033") == 12  # Westminster: TfL
    assert booking_record_months("E07000118") == 24  # Chorley
    assert booking_record_months("E08000035") == 12  # Leeds: the default
    with override_settings(PRIVACY_BOOKING_RECORD_DEFAULT_MONTHS=18):
        assert booking_record_months("E08000035") == 18
        assert booking_record_months("E07000118") == 24


def test_bookings_are_minimised_after_their_pickup_authoritys_period_and_not_before():
    pickup = timezone.now() - dt.timedelta(days=3)
    leeds = _booking(LEEDS, pickup)
    chorley = _booking(CHORLEY, pickup)
    PaymentRecordFactory(booking=leeds, amount=Decimal("38.20"))
    with time_machine.travel(pickup + relativedelta(months=12) - dt.timedelta(hours=1)):
        retention_apply()
    assert _contact(leeds)["passenger_email"] == "jo.bloggs@example.co.uk"
    with time_machine.travel(pickup + relativedelta(months=12, days=1)):
        retention_apply()
    assert set(_contact(leeds).values()) == {""}
    assert _contact(chorley)["passenger_phone"] == "+447700900123"  # Chorley keeps 2 years
    leeds.refresh_from_db()
    # The statutory fields stay, and so does the money.
    assert (leeds.reference, leeds.pickup, leeds.dropoff, leeds.fare) == (
        leeds.reference,
        "Leeds station",
        "York",
        Decimal("38.20"),
    )
    assert leeds.payment_records.get().amount == Decimal("38.20")
    with time_machine.travel(pickup + relativedelta(months=24, days=1)):
        retention_apply()
    assert set(_contact(chorley).values()) == {""}


def test_a_partners_support_requests_go_with_the_passengers_details_and_not_before():
    """A TOMP provider's support request may name the traveller: it is deleted when the
    booking is minimised, and kept while the booking keeps its passenger."""
    pickup = timezone.now() - dt.timedelta(days=3)
    leeds = _booking(LEEDS, pickup)
    chorley = _booking(CHORLEY, pickup)
    for booking in (leeds, chorley):
        SupportRequest.objects.create(
            account=AccountFactory(),
            booking=booking,
            support_type="LOST_ITEM",
            comment="Jo left a phone",
            request={"contactInformationEndUser": {"phone": "+447700900123"}},
        )
    with time_machine.travel(pickup + relativedelta(months=12) - dt.timedelta(hours=1)):
        retention_apply()
    assert SupportRequest.objects.count() == 2
    with time_machine.travel(pickup + relativedelta(months=12, days=1)):
        retention_apply()
    assert list(SupportRequest.objects.values_list("booking_id", flat=True)) == [chorley.pk]


def test_a_held_booking_keeps_its_passenger_and_its_trail_until_the_hold_is_released():
    pickup = timezone.now() - dt.timedelta(days=1)
    driver = DriverFactory()
    booking = _booking(LONDON, pickup, driver=driver)
    PositionSample.objects.create(
        driver=driver, booking=booking, slot=1, at=pickup, lat=LONDON[0], lng=LONDON[1]
    )
    hold = Hold.objects.create(booking=booking, reason=HoldReason.NO_SHOW_CLAIM)
    later = pickup + relativedelta(months=13)
    with time_machine.travel(later):
        report = retention_apply()
    assert report.held == 1
    assert _contact(booking)["passenger_name"] == "Jo Bloggs"
    assert PositionSample.objects.filter(booking=booking).count() == 1
    Hold.objects.filter(pk=hold.pk).update(released_at=later)
    with time_machine.travel(later + dt.timedelta(hours=1)):
        retention_apply()
    assert _contact(booking)["passenger_name"] == ""
    assert not PositionSample.objects.filter(booking=booking).exists()


def test_trails_messages_codes_passengers_and_logs_end_as_the_schedule_says():
    now = timezone.now()
    driver = DriverFactory()
    booking = BookingFactory(driver=driver, pickup_time=now)
    PositionSample.objects.create(driver=driver, booking=booking, slot=7, at=now, lat=1, lng=1)
    NotificationLog.objects.create(
        driver=driver, booking=booking, channel="sms", to="+447700900999", body="Job card"
    )
    lonely = Passenger.objects.create(email="lonely@example.co.uk", name="Lo")
    blocked = Passenger.objects.create(email="blocked@example.co.uk", blocked=True)
    booker = PassengerFactory(email="jo.bloggs@example.co.uk")
    EmailConfirmation.objects.create(passenger=booker, token="t" * 40)
    SignInCode.objects.create(email="jo.bloggs@example.co.uk", code_hash="x", expires_at=now)
    ScreeningRejection.objects.create(caller="ip:1", path="/", field="notes", rule="r", excerpt="x")
    StaffView.objects.create(username="staff", model="bookings.booking", object_id="1", path="/a")

    with time_machine.travel(now + dt.timedelta(days=2)):
        retention_apply()
    assert not EmailConfirmation.objects.exists()
    assert not SignInCode.objects.exists()
    assert PositionSample.objects.count() == 1

    with time_machine.travel(now + dt.timedelta(days=31)):
        retention_apply()
    assert not PositionSample.objects.exists()
    assert not Passenger.objects.filter(pk=lonely.pk).exists()
    assert Passenger.objects.filter(pk=blocked.pk).exists()  # kept while blocked
    assert Passenger.objects.filter(pk=booker.pk).exists()  # a kept booking names them
    assert NotificationLog.objects.get().to == "+447700900999"

    with time_machine.travel(now + dt.timedelta(days=91)):
        retention_apply()
    log = NotificationLog.objects.get()
    assert (log.to, log.body) == ("", "")
    assert not ScreeningRejection.objects.exists()
    assert StaffView.objects.exists()

    with time_machine.travel(now + dt.timedelta(days=731)):
        retention_apply()
    assert not StaffView.objects.exists()
    assert not Passenger.objects.filter(pk=booker.pk).exists()  # its booking is minimised


def test_running_twice_changes_nothing_more_and_small_batches_reach_every_row():
    pickup = timezone.now() - relativedelta(months=14)
    bookings = [_booking(LEEDS, pickup) for _ in range(7)]
    first = retention_apply(batch=3)
    assert first.counts["bookings"] == 7
    assert all(set(_contact(b).values()) == {""} for b in bookings)
    second = retention_apply(batch=3)
    assert second.counts["bookings"] == 0


def test_a_minimised_booking_is_still_in_the_statutory_export(client):
    pickup = timezone.now() - relativedelta(months=14)
    booking = _booking(LEEDS, pickup)
    retention_apply()
    staff = get_user_model().objects.create_superuser("boss", "boss@example.co.uk", "pw")
    client.force_login(staff)
    response = client.post(
        "/admin/bookings/booking/",
        {"action": "export_statutory_record", "_selected_action": [booking.pk]},
    )
    assert response.status_code == 200
    rows = list(csv.reader(io.StringIO(response.content.decode())))
    assert any(booking.reference in row for row in rows[1:])
    assert "Jo Bloggs" not in response.content.decode()


def test_webhook_deliveries_and_expired_oauth_grants_go_after_their_periods():
    now = timezone.now()
    account = AccountFactory()
    first, second = BookingEventFactory(), BookingEventFactory()
    delivered = WebhookDelivery.objects.create(
        booking=first.booking,
        event=first,
        account=account,
        webhook_id="msg_1",
        event_type="booking.created",
        sequence=1,
        body='{"passenger": "Jo"}',
        url="https://example.org/hook",
        status="delivered",
    )
    WebhookAttempt.objects.create(delivery=delivered, status_code=200)
    pending = WebhookDelivery.objects.create(
        booking=second.booking,
        event=second,
        account=account,
        webhook_id="msg_2",
        event_type="booking.created",
        sequence=2,
        body="{}",
        url="https://example.org/hook",
        status="pending",
    )
    user = get_user_model().objects.create_user("agent-passenger")
    application = get_application_model().objects.create(
        name="An assistant",
        client_type="public",
        authorization_grant_type="authorization-code",
        redirect_uris="https://example.org/cb",
        user=None,
    )
    get_grant_model().objects.create(
        user=user,
        application=application,
        code="c",
        expires=now,
        redirect_uri="https://example.org/cb",
        code_challenge="x" * 43,
        code_challenge_method="S256",
    )
    with time_machine.travel(now + dt.timedelta(days=6)):
        retention_apply()
    assert get_grant_model().objects.exists()
    with time_machine.travel(now + dt.timedelta(days=31)):
        report = retention_apply()
    assert not get_grant_model().objects.exists()
    assert report.counts["webhook_deliveries"] == 1
    assert list(WebhookDelivery.objects.values_list("pk", flat=True)) == [pending.pk]
    assert not WebhookAttempt.objects.exists()


@pytest.mark.django_db(transaction=True)
def test_a_row_a_live_request_holds_is_left_for_the_next_run_not_waited_for(settings):
    """On PostgreSQL each retention statement is cancelled after PRIVACY_RETENTION_LOCK_MS:
    a batch that would wait behind a live request's lock is retried in halves, every other
    row is minimised, and the held row waits for the next run (issue 39: never a lock held
    for more than a second)."""
    from django.db import connection

    if connection.vendor != "postgresql":
        pytest.skip("statement_timeout is PostgreSQL's")
    import psycopg

    settings.PRIVACY_RETENTION_LOCK_MS = 300
    pickup = timezone.now() - relativedelta(months=14)
    bookings = [_booking(LEEDS, pickup) for _ in range(6)]
    busy = bookings[3]
    params = connection.get_connection_params()
    with psycopg.connect(**params) as other:
        other.execute("SELECT id FROM bookings_booking WHERE id = %s FOR UPDATE", [busy.pk])
        # Were the job to wait for the lock, the test would hang: release it after 10 s.
        release = threading.Timer(10, other.rollback)
        release.start()
        started = time.monotonic()
        report = retention_apply(batch=6)
        elapsed = time.monotonic() - started
        release.cancel()
    assert elapsed < 5
    assert report.counts["bookings"] == 5
    assert _contact(busy)["passenger_email"] == "jo.bloggs@example.co.uk"
    assert all(set(_contact(b).values()) == {""} for b in bookings if b is not busy)
    assert retention_apply().counts["bookings"] == 1  # released: the next run takes it
    assert set(_contact(busy).values()) == {""}
