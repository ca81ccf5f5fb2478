"""The MCP tools' arguments: types with the limits and descriptions an assistant reads."""

from __future__ import annotations

import datetime as dt
from typing import Annotated, Literal

from pydantic import Field

from bookings.services import PAYMENT_METHOD_ALIASES
from pricing.vehicles import MAX_PASSENGERS, SEATS, vehicle_default_for_party_described

VehicleTypeName = Literal[tuple(SEATS)]  # type: ignore[valid-type]
# The spellings the booking API accepts (contract 3), stored normalised.
PaymentMethodName = Literal[tuple(PAYMENT_METHOD_ALIASES)]  # type: ignore[valid-type]


Pickup = Annotated[
    str,
    Field(
        min_length=1,
        max_length=300,
        description="Where the passenger is collected: a UK postcode, station, airport "
        "name or IATA code, terminal, landmark or town; a street address with its postcode "
        "(without one it is placed only where the service has a street geocoder, else "
        "address_not_precise: ask for the postcode or a nearby station or landmark).",
    ),
]
Dropoff = Annotated[
    str, Field(min_length=1, max_length=300, description="Where the journey ends (as pickup).")
]
DepartAt = Annotated[
    dt.datetime | None,
    Field(
        description="Pickup time, ISO 8601. Without an offset it is read as UTC. "
        "Omit for now. Night and holiday tariffs follow UK local time."
    ),
]
Passengers = Annotated[
    int,
    Field(ge=1, le=MAX_PASSENGERS, description=f"Number of passengers, 1 to {MAX_PASSENGERS}."),
]
VehicleType = Annotated[
    VehicleTypeName | None,
    Field(
        description="Vehicle class. Omit for the smallest class that seats the party "
        f"({vehicle_default_for_party_described()})."
    ),
]
MeetAndGreet = Annotated[
    bool,
    Field(
        description="Driver meets the passenger inside the terminal (airport pickups only; adds a fee)."
    ),
]
Email = Annotated[str, Field(min_length=3, max_length=254, description="The passenger's email.")]
Reference = Annotated[
    str, Field(min_length=3, max_length=40, description="The booking reference, e.g. DTD-7K3QX9PA.")
]
