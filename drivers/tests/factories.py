"""Factories for drivers, their vehicles, corridors and the users they sign in as."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import factory
from django.contrib.auth import get_user_model
from django.utils import timezone
from factory.django import DjangoModelFactory
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from core.testing.places import LEEDS, LONDON
from drivers.models import Corridor, Driver, DriverStage, NetworkTier, Vehicle
from drivers.positions import Fix
from drivers.services import driver_location_report, driver_position_index


class UserFactory(DjangoModelFactory):
    class Meta:
        model = get_user_model()

    username = factory.Sequence(lambda n: f"driver{n}@example.co.uk")
    email = factory.LazyAttribute(lambda o: o.username)
    password = factory.django.Password("correct horse battery")


class DriverFactory(DjangoModelFactory):
    """An approved driver in the trial, online at Leeds station, taking one job at a time."""

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


class BilledDriverFactory(DriverFactory):
    """An offline driver approved long ago (6 January 2025): past the 90-day trial, billed
    weekly, unless a test says otherwise."""

    stage = DriverStage.BILLED
    approved_at = datetime(2025, 1, 6, 9, 0, tzinfo=UTC)
    online = False
    last_lat = None
    last_lng = None
    last_seen_at = None


class VehicleFactory(DjangoModelFactory):
    """A licensed vehicle; its driver enters the live-position index (with the Redis
    backend) at their row's position and time, as going online does."""

    class Meta:
        model = Vehicle
        skip_postgeneration_save = True

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

    @factory.post_generation
    def position_indexed(obj, create, extracted, **kwargs):
        driver = obj.driver
        if create and driver.online and driver.last_seen_at is not None:
            driver_position_index(driver=driver, at=driver.last_seen_at)


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


def driver_at(point: tuple[float, float], vehicle: dict | None = None, **fields) -> Driver:
    """An approved, online driver positioned at ``point`` with one vehicle."""
    fields.setdefault("last_lat", point[0])
    fields.setdefault("last_lng", point[1])
    driver = DriverFactory(**fields)
    VehicleFactory(driver=driver, **(vehicle or {}))
    return driver


def fleet_driver(*, operator=None, name: str = "Asha Khan", registration: str | None = None):
    """An approved, offline driver with one vehicle, in ``operator``'s own fleet if given."""
    driver = DriverFactory(
        name=name,
        stage=DriverStage.APPROVED,
        approved_at=timezone.now(),
        operator=operator,
        online=False,
        last_lat=None,
        last_lng=None,
        last_seen_at=None,
    )
    vehicle = {"registration": registration} if registration else {}
    VehicleFactory(driver=driver, **vehicle)
    return driver


def position_report(driver, *, lat: float, lng: float, heading=None, now=None):
    """The driver's app reports where the car is (as POST /v1/driver/location does), at
    ``now`` (the test's clock when not given)."""
    vehicle_classes = sorted(
        set(driver.vehicles.filter(active=True).values_list("vehicle_class", flat=True))
    )
    return driver_location_report(
        driver_id=driver.pk,
        vehicle_classes=vehicle_classes,
        fixes=[Fix(lat=lat, lng=lng, heading=heading, at=now or timezone.now())],
    )


def driver_client(driver) -> APIClient:
    """An API client holding ``driver``'s app token (a login made for them if they have none)."""
    if driver.user is None:
        driver.user = UserFactory()
        driver.save(update_fields=["user"])
    token, _ = Token.objects.get_or_create(user=driver.user)
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {token.key}")
    return client


def offer_accept_post(client, offer):
    """The driver app accepts ``offer`` (POST /v1/driver/offers/{id}/accept)."""
    return client.post(f"/api/public/v1/driver/offers/{offer.pk}/accept", format="json")


def signup_form(**overrides):
    """The signup page's form, filled in for Asha Khan of Leeds (``overrides`` change it)."""
    future = (timezone.localdate() + timedelta(days=400)).isoformat()
    form = {
        "name": "Asha Khan",
        "email": "asha.khan@example.co.uk",
        "phone": "07911 123456",
        "password": "a-long-unusual-passphrase-42",
        "licensing_authority": "Leeds City Council",
        "licence_number": "PHD123456",
        "licence_expiry": future,
        "base_city": "Leeds",
        "operating_radius_km": "20",
        "network": "local",
        "vehicle_make": "Toyota",
        "vehicle_model": "Corolla",
        "vehicle_colour": "Silver",
        "vehicle_registration": "ab12 cde",
        "vehicle_class": "saloon",
        "vehicle_seats": "4",
        "vehicle_licensing_authority": "Leeds City Council",
        "vehicle_plate_number": "P1234",
        "vehicle_plate_expiry": future,
    }
    form.update(overrides)
    return form
