"""The operator dashboard's services: the calendar day and the assign form."""

from __future__ import annotations

import datetime as dt

import pytest
from django.utils import timezone

from bookings.models import Booking, BookingStatus
from bookings.references import reference_generate
from core.errors import DomainError
from core.localtime import local_zone
from drivers.tests.factories import fleet_driver
from partners.selectors import operator_calendar_day
from partners.services.operator import operator_job_assign_chosen

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
    driver = fleet_driver(operator=operator)
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
        assign(operator, job.reference, fleet_driver(operator=operator).pk)
    assert refused.value.code == "booking_not_found"


def test_the_calendar_groups_a_uk_day_by_local_hour(operator, django_assert_max_num_queries):
    london = local_zone()
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
    today = timezone.now().astimezone(local_zone()).date()
    assert operator_calendar_day(account=operator, day="not-a-day").day == today


@pytest.mark.parametrize("day", ["9999-12-31", "0001-01-01"])
def test_a_calendar_day_at_the_ends_of_time_is_today(operator, day):
    """Finding (issue 24): "`/operator/calendar/?day=9999-12-31` or `0001-01-01`: 500 on
    both databases." """
    today = timezone.now().astimezone(local_zone()).date()
    calendar = operator_calendar_day(account=operator, day=day)
    assert (calendar.day, calendar.next_day) == (today, today + dt.timedelta(days=1))


def test_the_calendar_counts_the_jobs_of_each_day_of_the_week(
    operator, django_assert_max_num_queries
):
    london = local_zone()
    wednesday = dt.date(2030, 6, 5)
    for day, hour in ((wednesday, 9), (wednesday, 23), (wednesday + dt.timedelta(days=1), 7)):
        own_job(operator, pickup_time=dt.datetime.combine(day, dt.time(hour), tzinfo=london))
    # the next Monday 00:30 UK time (Sunday 23:30 UTC) belongs to the next week
    own_job(operator, pickup_time=dt.datetime(2030, 6, 10, 0, 30, tzinfo=london))

    with django_assert_max_num_queries(1):
        calendar = operator_calendar_day(account=operator, day=wednesday.isoformat())

    assert [day for day, _ in calendar.week] == [
        dt.date(2030, 6, 3) + dt.timedelta(days=n) for n in range(7)
    ]
    assert [count for _, count in calendar.week] == [0, 0, 2, 1, 0, 0, 0]
    assert calendar.job_count == 2


def test_an_assignment_respects_the_drivers_job_limit_and_writes_an_offer(operator):
    """Finding: "An operator's assignment ignores the driver's job limit and writes no
    offer row: the driver is then offered and accepts a network job on top." """
    from dispatch.models import Offer, OfferStatus

    driver = fleet_driver(operator=operator)
    first, second = own_job(operator), own_job(operator)
    assign(operator, first.reference, driver.pk)
    driver.refresh_from_db()
    offer = Offer.objects.get(booking=first)
    assert (offer.status, offer.driver_id, driver.current_jobs) == (
        OfferStatus.ACCEPTED,
        driver.pk,
        1,
    )

    with pytest.raises(DomainError) as refused:
        assign(operator, second.reference, driver.pk)
    assert refused.value.code == "driver_busy"
    assert Booking.objects.get(pk=second.pk).status == BookingStatus.CONFIRMED
