"""Vehicle classes: the one table every use of a class derives from.

``VEHICLE_CLASSES`` below is the only list of classes in the code. Pricing reads the
seats and fare factors, dispatch reads which classes may serve a booking and which need
a wheelchair-accessible vehicle, the driver forms and the admin read the choices, and
the OpenAPI ``VehicleTypeEnum`` is :class:`VehicleType`, built from the table. Adding a
class is one entry here, plus a migration for the models whose choices follow
(``makemigrations`` writes it); ``pricing/tests/test_vehicle_classes.py`` fails when a
consumer keeps its own list.

Seats per class are fixed by the contract (2.1). Factors are commercial policy, so the
``PRICING_VEHICLE_FACTORS`` setting may override the table's; whatever it says, a
wheelchair-accessible vehicle is never priced above a saloon for the same journey:
charging a wheelchair user more is unlawful (Equality Act 2010 s165).

Pricing is a leaf: this module imports no other app of ours, and the others import it.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

from django.conf import settings
from django.db import models

from core.errors import DomainError


@dataclass(frozen=True)
class VehicleClass:
    code: str
    label: str
    seats: int  # contract 2.1 (wav: the wheelchair user plus companions)
    fare_factor: str  # default factor on the metered fare; PRICING_VEHICLE_FACTORS overrides
    # The classes whose vehicles may serve a booking of this class: the same class or a
    # roomier or better one at the quoted fare. Seats are checked against the party apart.
    served_by: tuple[str, ...]
    wheelchair: bool = False  # a booking of this class needs a wheelchair-accessible vehicle
    # Contract 2.1: with no vehicleType, the smallest class marked here that seats the party.
    default_for_party: bool = False


# fmt: off
VEHICLE_CLASSES: tuple[VehicleClass, ...] = (
    VehicleClass("saloon", "Saloon", 4, "1.00",
                 served_by=("saloon", "estate", "executive", "luxury"), default_for_party=True),
    VehicleClass("estate", "Estate", 4, "1.10", served_by=("estate",)),
    VehicleClass("executive", "Executive", 4, "1.40", served_by=("executive", "luxury")),
    VehicleClass("luxury", "Luxury", 4, "1.80", served_by=("luxury",)),
    VehicleClass("5seater", "5-seater", 5, "1.20",
                 served_by=("5seater", "6seater", "7seater", "mpv"), default_for_party=True),
    VehicleClass("6seater", "6-seater", 6, "1.30",
                 served_by=("6seater", "7seater", "mpv"), default_for_party=True),
    VehicleClass("7seater", "7-seater", 7, "1.40",
                 served_by=("7seater", "mpv"), default_for_party=True),
    VehicleClass("mpv", "MPV (8 seats)", 8, "1.50", served_by=("mpv",), default_for_party=True),
    VehicleClass("wav", "Wheelchair-accessible vehicle", 4, "1.00",
                 served_by=("wav",), wheelchair=True),
)
# fmt: on

VEHICLE_CLASS_BY_CODE: dict[str, VehicleClass] = {vc.code: vc for vc in VEHICLE_CLASSES}

# The Django choices (model fields, serializers, forms) and the OpenAPI enum.
# Members are named by the upper-cased code (VehicleType.SALOON, VehicleType["5SEATER"]).
VehicleType = models.TextChoices(
    "VehicleType", [(vc.code.upper(), (vc.code, vc.label)) for vc in VEHICLE_CLASSES]
)

SEATS: dict[str, int] = {vc.code: vc.seats for vc in VEHICLE_CLASSES}
MAX_PASSENGERS = max(SEATS.values())

# Which classes may serve a requested class (dispatch filters candidates on this).
VEHICLE_CLASSES_SERVING: dict[str, frozenset[str]] = {
    vc.code: frozenset(vc.served_by) for vc in VEHICLE_CLASSES
}
WHEELCHAIR_CLASSES: frozenset[str] = frozenset(vc.code for vc in VEHICLE_CLASSES if vc.wheelchair)

_DEFAULT_CLASS_BY_SEATS: tuple[VehicleClass, ...] = tuple(
    sorted((vc for vc in VEHICLE_CLASSES if vc.default_for_party), key=lambda vc: vc.seats)
)


def vehicle_class_needs_wheelchair(code: str) -> bool:
    return code in WHEELCHAIR_CLASSES


def vehicle_factors() -> dict[str, Decimal]:
    """Fare factor per class: ``PRICING_VEHICLE_FACTORS`` where set, else the table's.

    Guarantees: every class has a factor, and no wheelchair class is priced above a
    saloon (s165).
    """
    configured = settings.PRICING_VEHICLE_FACTORS
    factors = {
        vc.code: Decimal(str(configured.get(vc.code, vc.fare_factor))) for vc in VEHICLE_CLASSES
    }
    for code in WHEELCHAIR_CLASSES:
        factors[code] = min(factors[code], factors["saloon"])
    return factors


def vehicle_class_resolve(
    *, vehicle_type: str | None, passengers: int, field: str = "vehicleType"
) -> str:
    """The class that carries the party: the one asked for, or the smallest that seats it.

    Raises DomainError ``invalid_input`` for an unknown class and ``vehicle_too_small``
    when the asked-for class has too few seats.
    """
    if not vehicle_type:
        for vc in _DEFAULT_CLASS_BY_SEATS:
            if passengers <= vc.seats:
                return vc.code
        vehicle_type = _DEFAULT_CLASS_BY_SEATS[-1].code
    if vehicle_type not in SEATS:
        raise DomainError(
            "invalid_input",
            f"Unknown vehicle class '{vehicle_type}'.",
            errors={field: [f"Choose one of: {', '.join(SEATS)}."]},
        )
    seats = SEATS[vehicle_type]
    if passengers > seats:
        fitting_codes = [vc.code for vc in _DEFAULT_CLASS_BY_SEATS if vc.seats >= passengers]
        *smaller, largest = fitting_codes or [_DEFAULT_CLASS_BY_SEATS[-1].code]
        fitting = f"{', '.join(smaller)} or {largest}" if smaller else largest
        raise DomainError(
            "vehicle_too_small",
            f"A {vehicle_type} seats {seats}; the party is {passengers}. "
            f"Choose a {fitting} for larger groups.",
            errors={field: [f"A {vehicle_type} seats at most {seats} passengers."]},
        )
    return vehicle_type


def vehicle_classes_described() -> str:
    """The class codes as prose lists them (the operator intake guide)."""
    return ", ".join(vc.code for vc in VEHICLE_CLASSES)


def vehicle_default_for_party_described() -> str:
    """Which class a party gets when it names none, as schema text says it (MCP tools)."""
    sizes = ", ".join(f"{vc.code} up to {vc.seats}" for vc in _DEFAULT_CLASS_BY_SEATS)
    wheelchair = " and ".join(vc.code for vc in VEHICLE_CLASSES if vc.wheelchair)
    return f"{sizes}; {wheelchair} is wheelchair-accessible"
