"""Vehicle classes: seats, the fare factor per class, and the default class for a party.

Seats per class are fixed by the contract (2.1). Factors are a setting
(``PRICING_VEHICLE_FACTORS``) because they are commercial policy; whatever the setting
says, a wheelchair-accessible vehicle is never priced above a saloon for the same journey:
charging a wheelchair user more is unlawful (Equality Act 2010 s165).
"""

from __future__ import annotations

from decimal import Decimal

from django.conf import settings
from django.db import models

from api.problems import Problem


class VehicleType(models.TextChoices):
    SALOON = "saloon", "Saloon"
    ESTATE = "estate", "Estate"
    EXECUTIVE = "executive", "Executive"
    LUXURY = "luxury", "Luxury"
    FIVE_SEATER = "5seater", "5-seater"
    SIX_SEATER = "6seater", "6-seater"
    SEVEN_SEATER = "7seater", "7-seater"
    MPV = "mpv", "MPV (8 seats)"
    WAV = "wav", "Wheelchair-accessible vehicle"


# Contract 2.1: seats per class (wav: the wheelchair user plus companions).
SEATS: dict[str, int] = {
    "saloon": 4,
    "estate": 4,
    "executive": 4,
    "luxury": 4,
    "5seater": 5,
    "6seater": 6,
    "7seater": 7,
    "mpv": 8,
    "wav": 4,
}

# Contract 2.1: when vehicleType is omitted, the smallest class that seats the party.
DEFAULT_CLASS_BY_SEATS: tuple[tuple[int, str], ...] = (
    (4, "saloon"),
    (5, "5seater"),
    (6, "6seater"),
    (7, "7seater"),
    (8, "mpv"),
)

DEFAULT_FACTORS: dict[str, str] = {
    "saloon": "1.00",
    "estate": "1.10",
    "executive": "1.40",
    "luxury": "1.80",
    "5seater": "1.20",
    "6seater": "1.30",
    "7seater": "1.40",
    "mpv": "1.50",
    "wav": "1.00",
}

MAX_PASSENGERS = 8


def vehicle_factors() -> dict[str, Decimal]:
    """Fare factor per class from ``PRICING_VEHICLE_FACTORS`` (defaults above).

    Guarantees: every class has a factor >= 0, and ``wav`` <= ``saloon`` (s165).
    """
    configured = getattr(settings, "PRICING_VEHICLE_FACTORS", None) or {}
    factors = {
        name: Decimal(str(configured.get(name, default)))
        for name, default in DEFAULT_FACTORS.items()
    }
    factors["wav"] = min(factors["wav"], factors["saloon"])
    return factors


def vehicle_class_resolve(
    *, vehicle_type: str | None, passengers: int, field: str = "vehicleType"
) -> str:
    """The class that carries the party: the one asked for, or the smallest that seats it.

    Raises Problem 400 ``vehicle_too_small`` when the asked-for class has too few seats.
    """
    if not vehicle_type:
        for seats, name in DEFAULT_CLASS_BY_SEATS:
            if passengers <= seats:
                return name
        vehicle_type = "mpv"
    if vehicle_type not in SEATS:
        raise Problem(
            400,
            "invalid_input",
            f"Unknown vehicle class '{vehicle_type}'.",
            errors={field: [f"Choose one of: {', '.join(SEATS)}."]},
        )
    if passengers > SEATS[vehicle_type]:
        raise Problem(
            400,
            "vehicle_too_small",
            f"A {vehicle_type} seats {SEATS[vehicle_type]}; the party is {passengers}. "
            "Choose a 6seater, 7seater or mpv for larger groups.",
            errors={field: [f"A {vehicle_type} seats at most {SEATS[vehicle_type]} passengers."]},
        )
    return vehicle_type
