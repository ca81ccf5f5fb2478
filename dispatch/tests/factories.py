"""Factories for drivers, vehicles, bookings, fleets and accounts (dispatch and drivers tests)."""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal

import factory
from django.contrib.auth import get_user_model
from django.utils import timezone
from factory.django import DjangoModelFactory

from bookings.models import Booking
from bookings.references import reference_generate
from dispatch.models import OperatorLicence, PartnerFleet
from drivers.models import Corridor, Driver, DriverStage, NetworkTier, Vehicle
from partners.models import Account

# Leeds station and York, the two ends of most test journeys.
LEEDS = (53.7950, -1.5475)
YORK = (53.9590, -1.0815)
LONDON = (51.5308, -0.1238)
KM_LAT = 1 / 111.2  # degrees of latitude per km


def north_of(point: tuple[float, float], km: float) -> tuple[float, float]:
    return point[0] + km * KM_LAT, point[1]


class AccountFactory(DjangoModelFactory):
    class Meta:
        model = Account

    kind = "partner"
    name = factory.Sequence(lambda n: f"Account {n}")
    slug = factory.Sequence(lambda n: f"account-{n}")
    approved = True


class UserFactory(DjangoModelFactory):
    class Meta:
        model = get_user_model()

    username = factory.Sequence(lambda n: f"driver{n}@example.co.uk")
    email = factory.LazyAttribute(lambda o: o.username)
    password = factory.django.Password("correct horse battery")


class DriverFactory(DjangoModelFactory):
    class Meta:
        model = Driver

    name = factory.Sequence(lambda n: f"Driver {n}")
    phone = factory.Sequence(lambda n: f"+4477009{n % 100000:05d}")
    stage = DriverStage.TRIAL
    approved_at = factory.LazyFunction(lambda: timezone.now() - timedelta(days=10))
    licensing_authority = "Leeds City Council"
    licence_number = factory.Sequence(lambda n: f"PHD{n:06d}")
    licence_expiry = factory.LazyFunction(lambda: timezone.localdate() + timedelta(days=365))
    base_city = "Leeds"
    base_lat = LEEDS[0]
    base_lng = LEEDS[1]
    operating_radius_km = 25
    network = NetworkTier.LOCAL
    online = True
    last_lat = factory.LazyAttribute(lambda o: o.base_lat)
    last_lng = factory.LazyAttribute(lambda o: o.base_lng)
    last_seen_at = factory.LazyFunction(timezone.now)
    max_jobs = 1


class VehicleFactory(DjangoModelFactory):
    class Meta:
        model = Vehicle

    driver = factory.SubFactory(DriverFactory)
    make = "Toyota"
    model = "Corolla"
    colour = "Silver"
    registration = factory.Sequence(lambda n: f"YX{n % 100:02d} D{n:04d}"[:12])
    vehicle_class = "saloon"
    seats = 4
    wheelchair_accessible = False
    licensing_authority = factory.LazyAttribute(lambda o: o.driver.licensing_authority)
    plate_number = factory.Sequence(lambda n: f"P{n:05d}")
    plate_expiry = factory.LazyFunction(lambda: timezone.localdate() + timedelta(days=365))


def driver_at(point: tuple[float, float], vehicle: dict | None = None, **fields) -> Driver:
    """An approved, online driver positioned at ``point`` with one vehicle."""
    fields.setdefault("last_lat", point[0])
    fields.setdefault("last_lng", point[1])
    driver = DriverFactory(**fields)
    VehicleFactory(driver=driver, **(vehicle or {}))
    return driver


class BookingFactory(DjangoModelFactory):
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


class CorridorFactory(DjangoModelFactory):
    class Meta:
        model = Corridor

    driver = factory.SubFactory(DriverFactory, network=NetworkTier.NATIONAL)
    origin = "Leeds"
    origin_lat = LEEDS[0]
    origin_lng = LEEDS[1]
    destination = "London"
    destination_lat = LONDON[0]
    destination_lng = LONDON[1]
    radius_km = 30


class PartnerFleetFactory(DjangoModelFactory):
    class Meta:
        model = PartnerFleet

    account = factory.SubFactory(AccountFactory, webhook_url="https://fleet.example/hooks/dtd")
    active = True


class OperatorLicenceFactory(DjangoModelFactory):
    class Meta:
        model = OperatorLicence

    account = factory.SubFactory(AccountFactory, kind="operator")
    licensing_authority = "Leeds City Council"
    licence_number = factory.Sequence(lambda n: f"OP{n:05d}")
    licence_expiry = factory.LazyFunction(lambda: timezone.localdate() + timedelta(days=365))
