"""The operator dashboard's services: the calendar day and the assign form."""

from __future__ import annotations

import datetime as dt

import pytest
from django.utils import timezone

from bookings.models import Booking, BookingStatus
from bookings.references import reference_generate
from core.errors import DomainError
from partners.selectors import LOCAL_TIME_ZONE, operator_calendar_day
from partners.services.operator import operator_job_assign_chosen
from partners.tests.factories import driver_create

pytestmark = pytest.mark.django_db


@pytest.fixture
def operator(make_account):
    return make_account("operator", name="Own Cars", approved=True)


def own_job(account, **fields):
    values = {
        "reference": reference_generate(),
        "source": "operator",
        "account": account,
        "job_ref": reference_generate(),
        "dispatch_queue": "operator",
        "pickup": "Leeds",
        "dropoff": "York",
        "fare": 30,
        "pickup_time": timezone.now() + dt.timedelta(hours=3),
    }
    values.update(fields)
    return Booking.objects.create(**values)


def assign(operator, reference, driver_id, vehicle_id=None):
    return operator_job_assign_chosen(
        account=operator,
        reference=reference,
        driver_id=driver_id,
        vehicle_id=vehicle_id,
        actor="operator-user:test",
    )


def test_assigning_an_own_driver(operator):
    job = own_job(operator)
    driver = driver_create(operator=operator)
    booking = assign(operator, job.reference, str(driver.pk))
    assert (booking.status, booking.driver, booking.vehicle) == (
        BookingStatus.ACCEPTED,
        driver,
        driver.vehicles.get(),
    )


@pytest.mark.parametrize("driver_id", [None, "", "abc", "999999"])
def test_no_own_driver_chosen_is_invalid_input(operator, driver_id):
    job = own_job(operator)
    with pytest.raises(DomainError) as refused:
        assign(operator, job.reference, driver_id)
    assert (refused.value.code, list(refused.value.errors)) == ("invalid_input", ["driver"])


def test_another_operators_job_is_not_found(operator, make_account):
    job = own_job(make_account("operator", name="Rival", approved=True))
    with pytest.raises(DomainError) as refused:
        assign(operator, job.reference, driver_create(operator=operator).pk)
    assert refused.value.code == "booking_not_found"


def test_the_calendar_groups_a_uk_day_by_local_hour(operator, django_assert_max_num_queries):
    london = LOCAL_TIME_ZONE
    day = (timezone.now() + dt.timedelta(days=3)).date()
    nine = own_job(operator, pickup_time=dt.datetime.combine(day, dt.time(9), tzinfo=london))
    own_job(
        operator,
        pickup_time=dt.datetime.combine(day, dt.time(9), tzinfo=london) + dt.timedelta(days=1),
    )

    with django_assert_max_num_queries(1):
        calendar = operator_calendar_day(account=operator, day=day.isoformat())

    assert calendar.job_count == 1
    hours = dict(calendar.hours)
    assert len(hours) == 24
    assert nine in [job for jobs in hours.values() for job in jobs]
    assert calendar.next_day == day + dt.timedelta(days=1)


def test_a_calendar_day_that_is_not_a_date_is_today(operator):
    today = timezone.now().astimezone(LOCAL_TIME_ZONE).date()
    assert operator_calendar_day(account=operator, day="not-a-day").day == today
