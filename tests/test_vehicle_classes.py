"""One vehicle-class table (pricing/vehicles.py) and every consumer derives from it.

A class added to the table alone must be priced, dispatched, offered in the driver
forms, listed in the operator guide and in the OpenAPI enum; these tests fail when a
consumer keeps a list of its own.
"""

from __future__ import annotations

from decimal import Decimal

import pytest
from django.utils import timezone

from bookings.tests.factories import BookingFactory
from core.testing.places import LEEDS, north_of
from dispatch.models import Tier
from dispatch.services import matching
from dispatch.services.matching import JobRequirements
from drivers.forms import DriverSignupForm
from drivers.models import Vehicle
from drivers.tests.factories import driver_at
from pricing.models import Quote
from pricing.vehicles import (
    SEATS,
    VEHICLE_CLASS_BY_CODE,
    VEHICLE_CLASSES,
    VEHICLE_CLASSES_SERVING,
    VehicleType,
    vehicle_factors,
)

CODES = [vc.code for vc in VEHICLE_CLASSES]


def test_the_table_is_consistent():
    assert len(set(CODES)) == len(CODES)
    for vc in VEHICLE_CLASSES:
        # every class can be served, at least by its own vehicles, and only by known classes
        assert vc.code in vc.served_by
        assert set(vc.served_by) <= set(CODES)
        # a class never falls to a vehicle with fewer seats or without a ramp it needs
        for other in vc.served_by:
            assert VEHICLE_CLASS_BY_CODE[other].seats >= vc.seats
            assert VEHICLE_CLASS_BY_CODE[other].wheelchair or not vc.wheelchair


def test_no_class_is_served_by_a_cheaper_one():
    # "the same class or a roomier or better one at the quoted fare": a booking is never
    # served by a class whose fare it would not have paid (a saloon for an estate)
    for vc in VEHICLE_CLASSES:
        for other in vc.served_by:
            cheaper = Decimal(VEHICLE_CLASS_BY_CODE[other].fare_factor) < Decimal(vc.fare_factor)
            assert not cheaper, f"{other} serves {vc.code}"


@pytest.mark.django_db
def test_an_estate_booking_is_not_offered_to_a_saloon_and_a_saloon_one_is_to_an_estate():
    saloon = driver_at(north_of(LEEDS, 1), vehicle={"vehicle_class": "saloon", "seats": 4})
    estate_booking = BookingFactory(vehicle_type="estate", passengers=1)
    job = JobRequirements.for_booking(estate_booking)
    assert matching.candidate_next(tier=Tier.LOCAL, job=job, now=timezone.now()) is None

    Vehicle.objects.filter(driver=saloon).update(vehicle_class="estate")
    saloon_booking = BookingFactory(vehicle_type="saloon", passengers=1)
    job = JobRequirements.for_booking(saloon_booking)
    assert matching.candidate_next(tier=Tier.LOCAL, job=job, now=timezone.now()).driver == saloon


def test_choices_everywhere_are_the_table():
    assert VehicleType.values == CODES
    assert [code for code, _ in DriverSignupForm.base_fields["vehicle_class"].choices] == CODES
    assert [code for code, _ in Vehicle._meta.get_field("vehicle_class").choices] == CODES
    assert [code for code, _ in Quote._meta.get_field("vehicle_type").choices] == CODES
    assert list(SEATS) == CODES
    assert list(vehicle_factors()) == CODES


@pytest.mark.django_db
def test_openapi_enum_is_the_table(api_client):
    schema = api_client.get("/api/public/openapi.json").json()
    assert schema["components"]["schemas"]["VehicleTypeEnum"]["enum"] == CODES


@pytest.mark.django_db
def test_operator_guide_lists_every_class(api_client):
    guide = api_client.get("/api/public/v1/operator/jobs").json()
    notes = guide["fields"]["vehicleType"]["notes"]
    assert [code.strip() for code in notes.split(",")] == CODES


@pytest.mark.django_db
@pytest.mark.parametrize("code", CODES)
def test_every_class_is_dispatchable(code):
    # given a driver whose vehicle is of the class, seating exactly the class's seats
    vc = VEHICLE_CLASS_BY_CODE[code]
    driver = driver_at(
        north_of(LEEDS, 1),
        vehicle={"vehicle_class": code, "seats": vc.seats, "wheelchair_accessible": vc.wheelchair},
    )
    # when a booking of that class for a full party is matched
    booking = BookingFactory(vehicle_type=code, passengers=vc.seats)
    job = JobRequirements.for_booking(booking)
    candidate = matching.candidate_next(tier=Tier.LOCAL, job=job, now=timezone.now())
    # then that driver is offered it
    assert candidate is not None
    assert candidate.driver == driver
    assert job.wheelchair == vc.wheelchair


@pytest.mark.django_db
@pytest.mark.parametrize("code", CODES)
def test_a_class_is_not_served_by_classes_outside_its_row(code):
    # given drivers of every other class that the table does not allow for this one
    outsiders = [c for c in CODES if c not in VEHICLE_CLASSES_SERVING[code]]
    for other in outsiders:
        vc = VEHICLE_CLASS_BY_CODE[other]
        driver_at(
            north_of(LEEDS, 1),
            vehicle={"vehicle_class": other, "seats": 8, "wheelchair_accessible": True},
        )
        assert vc.code != code
    booking = BookingFactory(vehicle_type=code, passengers=1)
    job = JobRequirements.for_booking(booking)
    # then none of them is offered the job
    assert matching.candidate_next(tier=Tier.LOCAL, job=job, now=timezone.now()) is None
