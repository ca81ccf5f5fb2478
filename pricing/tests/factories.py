"""Factories for pricing's records: quotes (a priced journey as the pricing service stores
it, without running the pricing engine: tests of what happens to a quote afterwards), and
tariff tables with their bands (tests of which table prices a journey, and how)."""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal

import factory
from django.utils import timezone
from factory.django import DjangoModelFactory

from core.testing.places import LEEDS, YORK
from pricing.models import Quote, Tariff, TariffBand


class QuoteFactory(DjangoModelFactory):
    """A 38.20 GBP saloon quote from Leeds station to York, departing in three hours."""

    class Meta:
        model = Quote

    pickup = "Leeds station"
    pickup_label = "Leeds railway station"
    pickup_lat = LEEDS[0]
    pickup_lng = LEEDS[1]
    dropoff = "York"
    dropoff_label = "York"
    dropoff_lat = YORK[0]
    dropoff_lng = YORK[1]
    passengers = 2
    vehicle_type = "saloon"
    depart_at = factory.LazyFunction(lambda: timezone.now() + timedelta(hours=3))
    fare = Decimal("38.20")
    applied_rules = factory.LazyAttribute(
        lambda o: [{"code": "flag_fall", "label": "Flag fall", "amountGBP": str(o.fare)}]
    )
    tariff_source = factory.LazyFunction(lambda: {"reference": "leeds-2024"})
    distance_miles = Decimal("24.6")
    duration_minutes = 41
    expires_at = factory.LazyFunction(lambda: timezone.now() + timedelta(hours=24))


# A band's time windows: every day, all day.
ALL_WEEK = [
    {
        "type": "weekly",
        "days": ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"],
        "start": "00:00",
        "end": "24:00",
    }
]


class TariffFactory(DjangoModelFactory):
    """A current council table of Testshire Council, with no bands yet (add them with
    ``TariffBandFactory``: a table without a complete band prices nothing)."""

    class Meta:
        model = Tariff

    reference = factory.Sequence(lambda n: f"testshire-{n}")
    name = "Testshire"
    authority = "Testshire Council"


class TariffBandFactory(DjangoModelFactory):
    """A complete band all week: 3.00 GBP for the first 300 m, then 20p per 100 m or per
    20 s of waiting (60p a minute)."""

    class Meta:
        model = TariffBand

    tariff = factory.SubFactory(TariffFactory)
    name = "Tariff 1"
    windows = factory.LazyFunction(lambda: [dict(window) for window in ALL_WEEK])
    flag_fall_gbp = Decimal("3.00")
    flag_fall_distance_m = Decimal(300)
    increment_distance_m = Decimal(100)
    increment_price_gbp = Decimal("0.20")
    waiting_seconds_per_increment = Decimal(20)
