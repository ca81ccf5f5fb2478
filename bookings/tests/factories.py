"""Factories for bookings, their passengers, events and payment records."""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal

import factory
from django.utils import timezone
from factory.django import DjangoModelFactory

from bookings.models import Booking, BookingEvent, Passenger, PaymentRecord
from bookings.references import reference_generate
from core.testing.places import LEEDS, YORK


class PassengerFactory(DjangoModelFactory):
    class Meta:
        model = Passenger
        django_get_or_create = ("email",)

    email = factory.Sequence(lambda n: f"passenger{n}@example.co.uk")
    phone = "+447700900123"
    name = "Jo Bloggs"


class BookingFactory(DjangoModelFactory):
    """A confirmed saloon booking from Leeds station to York, an hour from now."""

    class Meta:
        model = Booking

    reference = factory.LazyFunction(reference_generate)
    source = "api"
    passenger_name = "Jo Bloggs"
    passenger_email = "jo.bloggs@example.co.uk"
    passenger_phone = "+447700900123"
    pickup = "Leeds station"
    dropoff = "York"
    pickup_lat = LEEDS[0]
    pickup_lng = LEEDS[1]
    dropoff_lat = YORK[0]
    dropoff_lng = YORK[1]
    pickup_time = factory.LazyFunction(lambda: timezone.now() + timedelta(hours=1))
    passengers = 1
    vehicle_type = "saloon"
    fare = Decimal("38.20")


class BookingEventFactory(DjangoModelFactory):
    class Meta:
        model = BookingEvent

    booking = factory.SubFactory(BookingFactory)
    sequence = factory.Sequence(lambda n: n + 2)
    type = "booking.status_changed"
    actor = "test"


class PaymentRecordFactory(DjangoModelFactory):
    """A cash payment to the driver for the booking (append-only: created, never saved again)."""

    class Meta:
        model = PaymentRecord

    booking = factory.SubFactory(BookingFactory)
    kind = PaymentRecord.Kind.PAYMENT
    amount = Decimal("30.00")
    method = "cash_to_driver"
    processor_fee = Decimal("0.00")
