"""Factories for quotes: a priced journey as the pricing service stores it, without
running the pricing engine (tests of what happens to a quote afterwards)."""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal

import factory
from django.utils import timezone
from factory.django import DjangoModelFactory

from core.testing.places import LEEDS, YORK
from pricing.models import Quote


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
