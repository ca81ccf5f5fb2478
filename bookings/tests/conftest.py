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
