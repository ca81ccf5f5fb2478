from __future__ import annotations

import uuid
from datetime import timedelta
from decimal import Decimal

import pytest
from django.utils import timezone


@pytest.fixture
def future():
    return (timezone.now() + timedelta(days=1)).replace(microsecond=0)


@pytest.fixture
def quote_factory(db, tariffs):
    """A priced quote between two real places, made through the pricing service."""
    from pricing.services import quote_create

    def make(**overrides):
        options = {
            "pickup": "Leeds station",
            "dropoff": "York",
            "passengers": 2,
            "vehicle_type": None,
            "depart_at": timezone.now() + timedelta(hours=3),
        }
        options.update(overrides)
        return quote_create(**options)

    return make


@pytest.fixture
def booking_factory(db):
    """A booking two hours ahead at 48.20 GBP, made by ``BookingFactory``."""
    from bookings.tests.factories import BookingFactory

    def make(**overrides):
        values = {"pickup_time": timezone.now() + timedelta(hours=2), "fare": Decimal("48.20")}
        return BookingFactory(**(values | overrides))

    return make


def unknown_uuid() -> str:
    return str(uuid.uuid4())


@pytest.fixture
def accepted_booking(booking_factory):
    """A booking a licensed driver has accepted, with the vehicle the passenger will see."""
    from bookings.services import booking_status_change
    from drivers.tests.factories import DriverFactory, VehicleFactory

    booking = booking_factory()
    driver = DriverFactory(name="Asha Khan", phone="+447700900001")
    vehicle = VehicleFactory(driver=driver, registration="AB12 CDE")
    return booking_status_change(
        booking=booking, to_status="accepted", actor="test", driver=driver, vehicle=vehicle
    )
