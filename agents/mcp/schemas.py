"""Output schemas of the MCP tools: the HTTP API's bodies (contract 2.1, 3, 3.2, 3.3).

The tools return the HTTP body itself as ``structuredContent``; these models only publish
its shape (``outputSchema``) and check it. Field names are the wire names.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field


class _Body(BaseModel):
    model_config = ConfigDict(extra="allow")


class AppliedRule(_Body):
    code: str
    label: str
    amountGBP: float


class AlternativePlace(_Body):
    label: str
    lat: float
    lng: float
    precision: str


class ResolvedPlace(_Body):
    """Where an end of the journey was placed (contract 2.1)."""

    label: str
    lat: float
    lng: float
    precision: str = Field(description="address, postcode, venue, station, airport or town.")
    source: str
    alternatives: list[AlternativePlace] | None = Field(
        None,
        description="Other readings of the same text; send one's label instead if the "
        "passenger meant it.",
    )


class PlaceSuggestion(_Body):
    label: str = Field(description="Give this as pickup or dropoff: it resolves to this place.")
    precision: str
    kindLabel: str
    lat: float
    lng: float


class PlacesBody(_Body):
    """GET /api/public/v1/places (issue 22)."""

    places: list[PlaceSuggestion]


class QuoteBody(_Body):
    """The v1 quote (contract 2.1)."""

    quote_id: str = Field(description="Give this to start_booking as quoteId to book this fare.")
    fareGBP: float
    currency: str
    distanceMiles: float
    durationMinutes: int
    distanceSource: str | None = Field(None, description='"road" (routed) or "estimate".')
    distanceRangeMiles: dict[str, float] | None = Field(
        None, description="For an estimate: {low, high}, where 8 in 10 real journeys lie."
    )
    vehicleType: str
    passengers: int
    departAt: str
    appliedRules: list[AppliedRule]
    tariffSource: dict[str, Any]
    pickupPlace: ResolvedPlace | None = None
    dropoffPlace: ResolvedPlace | None = None
    bookingUrl: str
    expiresAt: str


class PassengerOut(_Body):
    name: str
    email: str
    phone: str


class StartBookingResult(_Body):
    """Either a preview (``status: "preview"``, with ``confirmationToken``) or, once
    confirmed, the v1 booking body (``bookingReference``, ``status``, ``statusUrl``,
    ``payDriverUrl``, ``fareGBP``, ``currency``, ``pickupTime``)."""

    status: str = Field(description='"preview" before confirmation; the booking status after.')
    confirmationToken: str | None = None
    confirmationExpiresAt: str | None = None
    bookingUrl: str | None = None
    quote: QuoteBody | None = None
    passenger: PassengerOut | None = None
    paymentMethod: str | None = None
    flightNumber: str | None = None
    notes: str | None = None
    bookingReference: str | None = None
    statusUrl: str | None = None
    payDriverUrl: str | None = None
    fareGBP: float | None = None
    currency: str | None = None
    pickupTime: str | None = None
    pickupCode: str | None = Field(
        default=None,
        description="The 4-digit code the passenger tells the driver to start the trip.",
    )


class BookingLookupBody(_Body):
    """The lookup (contract 3.2)."""

    bookingReference: str
    status: str
    pickupTime: str
    pickup: str
    dropoff: str
    passengers: int
    vehicleType: str
    fareGBP: float
    currency: str
    statusUrl: str
    payDriverUrl: str
    driver: dict[str, Any] | None
    payment: dict[str, Any]
    pickupCode: str | None = Field(
        default=None,
        description="The 4-digit code the passenger tells the driver to start the trip.",
    )


class BookingCancelBody(_Body):
    """The cancel (contract 3.3)."""

    bookingReference: str
    status: str


class ServiceInfoBody(_Body):
    name: str
    description: str
    coverage: dict[str, Any]
    vehicleClasses: list[dict[str, Any]]
    passengers: dict[str, int]
    fees: dict[str, Any]
    payment: dict[str, Any]
    limits: dict[str, Any]
    howToBook: str
    cancellation: str
    links: dict[str, str]
