"""What a journey's two resolved ends may be: one rule (422 ``address_not_precise``)."""

from __future__ import annotations

import math

from core.errors import DomainError
from pricing.gazetteer import Place
from pricing.geocoding.street_engines import streets_supported
from pricing.routing import great_circle_m

SAME_POINT_M = 50.0


def town_radius_km(town: Place) -> float:
    """How far a town's centre stands for the town: 1.5 km for a village, growing with
    the log of the population to 8 km for a city the size of London."""
    people = max(town.population, 1000)
    return min(8.0, 1.5 + 2 * math.log10(people / 1000))


def places_require_precise(
    *, pickup: Place, dropoff: Place, pickup_text: str, dropoff_text: str
) -> None:
    """Refuse a journey the resolved places cannot price (contract 2.1.1, issue 15).

    422 ``address_not_precise`` when the two ends land on one point, or when an
    end is only a town's centre and the other end lies inside that town while naming
    something more precise or standing in for a street itself ("10 Downing Street,
    London" -> "British Museum, London"): the fare would measure the town, not the
    journey. Town to town ("Harrogate" -> "Knaresborough") is centre to centre, as asked.
    """
    metres = great_circle_m(pickup.lat, pickup.lng, dropoff.lat, dropoff.lng)
    coarse: dict[str, list[str]] = {}
    if metres < SAME_POINT_M:  # from the same text or another: never a flag-fall fare
        message = f"Resolves to the same point as the other end ({pickup.label})."
        coarse = {"pickup": [message], "dropoff": [message]}
    for field_name, end, other in (("pickup", pickup, dropoff), ("dropoff", dropoff, pickup)):
        if (
            end.kind == "town"
            and (end.fallback or other.kind != "town" or other.fallback)
            and metres < town_radius_km(end) * 1000
        ):
            coarse.setdefault(field_name, []).append(
                f"Only placed as far as {end.label} (precision town), too coarse for a "
                "journey within it; give a station, venue, airport or postcode."
            )
    if coarse:
        raise DomainError(
            "address_not_precise",
            "The pickup and dropoff cannot be told apart precisely enough to price the "
            f"journey ({pickup.label} -> {dropoff.label}).",
            errors=coarse,
        )


def place_require_precise(place: Place, *, text: str, field_name: str) -> None:
    """Refuse an end placed only at the town its text names something inside ("10 High
    Street, Oxford" with no street engine, or one that found no such street there): 422
    ``address_not_precise``, asking for what the set-up can place (contract 2.1.1). The
    town's centre is never priced in the street's stead."""
    if not place.fallback:
        return
    if streets_supported():
        ask = (
            "Check the street and town, or add the postcode, or give a nearby station or landmark."
        )
    else:
        ask = "Add its postcode, or give a nearby station or landmark."
    raise DomainError(
        "address_not_precise",
        f"'{text[:120]}' could be placed only as far as {place.label}. {ask}",
        errors={field_name: [f"Only placed as far as {place.label}. {ask}"]},
    )
