"""An operator's assignment is held to central dispatch's matching rules of the job (issue
34): class, wheelchair access, seats, licences; a clear refusal names the rule."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from bookings.models import BookingStatus
from bookings.tests.factories import BookingFactory
from core.errors import DomainError
from drivers.models import Vehicle
from drivers.tests.factories import fleet_driver
from partners.services.operator import operator_job_assign

pytestmark = pytest.mark.django_db


@pytest.fixture
def operator(make_account):
    return make_account("operator", name="Leeds Cars", approved=True)


def _job(operator, **fields):
    values = {
        "account": operator,
        "source": "operator",
        "job_ref": f"J{fields.pop('n', 1)}",
        "dispatch_queue": "operator",
    }
    return BookingFactory(**(values | fields))


def _assign(operator, job, driver):
    return operator_job_assign(account=operator, booking=job, driver=driver, actor="operator:1")


def _refused(operator, job, driver) -> DomainError:
    with pytest.raises(DomainError) as refused:
        _assign(operator, job, driver)
    job.refresh_from_db()
    assert job.status == BookingStatus.CONFIRMED
    assert job.driver is None
    return refused.value


def test_a_wheelchair_car_is_refused_for_a_saloon_job(operator):
    tom = fleet_driver(operator=operator, name="Tom Price")
    Vehicle.objects.filter(driver=tom).update(vehicle_class="wav", wheelchair_accessible=True)
    error = _refused(operator, _job(operator, vehicle_type="saloon"), tom)
    assert error.code == "invalid_input"
    assert "class does not serve the booked class" in error.errors["driver"][0]


def test_a_wheelchair_job_needs_a_wheelchair_car(operator):
    asha = fleet_driver(operator=operator)
    error = _refused(operator, _job(operator, vehicle_type="wav", wheelchair_access=True), asha)
    assert "wheelchair" in error.detail or "class" in error.detail


def test_too_few_seats_and_an_expired_licence_are_refused(operator):
    asha = fleet_driver(operator=operator)
    assert "too few seats" in _refused(operator, _job(operator, passengers=6), asha).detail
    asha.licence_expiry = timezone.localdate() - timedelta(days=1)
    asha.save(update_fields=["licence_expiry"])
    assert "licence has expired" in _refused(operator, _job(operator, n=2), asha).detail


def test_a_suitable_driver_is_assigned(operator):
    asha = fleet_driver(operator=operator)
    job = _assign(operator, _job(operator), asha)
    assert job.status == BookingStatus.ACCEPTED
    assert job.driver == asha
