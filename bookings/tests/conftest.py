from __future__ import annotations

import uuid
from datetime import timedelta
from decimal import Decimal

import pytest
from django.utils import timezone

from bookings.models import Booking


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
    from bookings.references import reference_generate

    def make(**overrides):
        values = {
            "reference": reference_generate(),
            "source": "api",
            "passenger_name": "Jo Bloggs",
            "passenger_email": "jo.bloggs@example.co.uk",
            "passenger_phone": "+447700900123",
            "pickup": "Leeds station",
            "dropoff": "York",
            "pickup_time": timezone.now() + timedelta(hours=2),
            "fare": Decimal("48.20"),
        }
        values.update(overrides)
        return Booking.objects.create(**values)

    return make


def unknown_uuid() -> str:
    return str(uuid.uuid4())


@pytest.fixture
def accepted_booking(booking_factory):
    """A booking a licensed driver has accepted, with the vehicle the passenger will see."""
    from datetime import date

    from bookings.services import booking_status_change
    from drivers.models import Driver, Vehicle

    booking = booking_factory()
    driver = Driver.objects.create(
        name="Asha Khan",
        phone="+447700900001",
        licensing_authority="Leeds City Council",
        licence_number="L1",
        licence_expiry=date.today() + timedelta(days=90),
        base_city="Leeds",
        base_lat=53.8,
        base_lng=-1.55,
    )
    vehicle = Vehicle.objects.create(
        driver=driver,
        make="Toyota",
        model="Corolla",
        colour="Silver",
        registration="AB12 CDE",
        licensing_authority="Leeds City Council",
        plate_expiry=date.today() + timedelta(days=90),
    )
    return booking_status_change(
        booking=booking, to_status="accepted", actor="test", driver=driver, vehicle=vehicle
    )
