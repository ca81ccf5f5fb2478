"""Pricing services: price a journey, issue a quote (seed 2.1-2.4, contract 2)."""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from dataclasses import dataclass, field
from decimal import Decimal

from django.conf import settings
from django.utils import timezone

from core import fast_paths
from core.errors import DomainError
from core.money import gbp
from pricing.compiled_tariffs import TariffIncomplete
from pricing.fares import FareOptions, fare_compute
from pricing.gazetteer import Place
from pricing.geocoding import (
    address_hint,
    geocoder_get,
    place_require_precise,
    places_require_precise,
)
from pricing.holidays import nation_of_district
from pricing.licensing import district_at, licensing_authority_at
from pricing.models import Quote
from pricing.routing import DistanceSource, router_get
from pricing.selectors import tariff_select
from pricing.vehicles import MAX_PASSENGERS, vehicle_class_resolve, vehicle_factors

MPH_TO_MPS = Decimal("0.44704")


@dataclass(frozen=True)
class PricedJourney:
    """A priced journey, not yet stored. ``applied_rules`` and ``tariff_source`` are
    JSON-ready (amounts as numbers with 2 dp) and ``applied_rules`` sum to ``fare``."""

    fare: Decimal
    currency: str
    distance_miles: Decimal
    duration_minutes: int
    vehicle_type: str
    passengers: int
    depart_at: dt.datetime
    applied_rules: list[dict]
    tariff_source: dict
    pickup: Place
    dropoff: Place
    meet_and_greet: bool = False
    worldwide: bool = False
    band: str = ""
    uncertain: list[str] = field(default_factory=list)
    distance_source: str = DistanceSource.ESTIMATE  # contract 2.1: "road" or "estimate"
    # The stored snapshot of the tariff's part of ``tariff_source`` and what the journey
    # adds to it (pricing.tariff_snapshots); none: the row stores ``tariff_source`` whole.
    tariff_snapshot: str | None = None
    tariff_source_own: dict | None = None

    def tariff_source_columns(self) -> dict:
        """The tariffSource columns of a quote or booking priced on this journey."""
        if self.tariff_snapshot is None:
            return {"tariff_source_own": self.tariff_source, "tariff_snapshot_id": None}
        return {
            "tariff_source_own": self.tariff_source_own,
            "tariff_snapshot_id": self.tariff_snapshot,
        }


def _rename(errors: dict[str, list[str]], field_names: Mapping[str, str] | None) -> dict:
    if not field_names:
        return errors
    return {field_names.get(k, k): v for k, v in errors.items()}


def _locate(text: str, *, field_name: str, worldwide: bool, near: Place | None = None) -> Place:
    place = geocoder_get().geocode(text, worldwide=worldwide, near=near)
    if place is None:
        raise DomainError(
            "address_not_found",
            f"Could not locate '{text[:120]}'.",
            errors={field_name: [f"Address could not be located. {address_hint()}"]},
        )
    place_require_precise(place, text=text, field_name=field_name)
    if not place.in_uk and not worldwide:
        raise DomainError(
            "outside_service_area",
            f"'{text[:120]}' resolved to {place.label} ({place.country}), outside the UK. "
            "Send worldwide: true for journeys outside the UK.",
            errors={field_name: ["Outside the UK; set worldwide to true."]},
        )
    return place


def meet_and_greet_require_airport(*, meet_and_greet: bool, pickup: Place) -> None:
    """Meet and greet is for airport pickups only (contract 2.1): every door that takes
    ``meetAndGreet`` (v1 quote and booking, the MCP tools) prices through here."""
    if meet_and_greet and not pickup.is_airport:
        raise DomainError(
            "invalid_input",
            f"Meet and greet is for airport pickups only; the pickup is {pickup.label} "
            f"(precision {pickup.kind}).",
            errors={"meetAndGreet": ["Only for airport pickups."]},
        )


def _network_note(tariff, authority: str | None) -> str | None:
    """What a quote says when the network's own rate prices a pickup inside a council's
    licensing area (issue 15: "Leeds station" is Leeds City Council's), so that the network
    rate never passes for the council's."""
    if tariff.kind != "operator" or tariff.account_id is not None or authority is None:
        return None
    return (
        f"The pickup is in {authority}'s licensing area, none of whose figures are loaded "
        "(no table, and no published fare to estimate one from); priced at the network's "
        "approved rate."
    )


def estimate_rule(source: dict) -> dict | None:
    """The appliedRules line of an estimated fare (contract 2.1): it says that the fare is
    an estimate and by how much the authority's meter may differ (the method's measured
    error, ``estimate.errorPct``). It adds nothing to the fare."""
    estimate = source.get("estimate")
    if not estimate:
        return None
    basis = source.get("basis")
    how = (
        "last complete table with every later published change applied"
        if basis == "uprated"
        else "published fares fitted to a reference meter"
    )
    return {
        "code": "estimated_fare",
        "label": (
            f"Estimated from {source['name']}'s {how}: the meter may differ by up to "
            f"{estimate['errorPct']}% (the method's measured error)"
        ),
        "amountGBP": 0.0,
    }


def vehicle_factor_for(tariff, vehicle: str) -> Decimal:
    """The factor a vehicle class puts on the metered fare: none on a council's table (its
    fares are maxima, whatever the car; its own rules for more passengers or larger cars
    are its extras, applied by the meter), the class's factor on the network's and an
    operator's own rates (issue 33: a 6-seater no longer multiplies a council's fare)."""
    if tariff.kind == "council":
        return Decimal(1)
    return vehicle_factors()[vehicle]


def pickup_nation(pickup: Place) -> str:
    """Whose public holidays a journey follows: the pickup's nation (pricing.holidays)."""
    district = district_at(pickup.lat, pickup.lng) if pickup.in_uk else None
    return nation_of_district(district.code if district else None)


def quote_price(
    *,
    pickup: str,
    dropoff: str,
    passengers: int,
    vehicle_type: str | None,
    depart_at: dt.datetime | None,
    meet_and_greet: bool = False,
    worldwide: bool = False,
    account=None,
    fare_override: Decimal | None = None,
    field_names: Mapping[str, str] | None = None,
) -> PricedJourney:
    """Price a journey without writing anything (one read to check the tariff cache).

    Guarantees: the fare is Decimal, 2 dp, half-up, and equals the sum of the applied
    rules; the vehicle seats the party; the departure defaults to now and a naive one is
    taken as UTC. A partner-supplied ``fare_override`` replaces the computed fare.
    Errors (DomainError codes): 400 ``vehicle_too_small``/``invalid_input``, 422
    ``address_not_found``, ``outside_service_area``, ``tariff_incomplete``. Error keys are
    the v1 field names, renamed through ``field_names`` (e.g. to the snake_case alias).
    """
    try:
        if not 1 <= passengers <= MAX_PASSENGERS:
            raise DomainError(
                "invalid_input",
                f"Passengers must be 1 to {MAX_PASSENGERS}.",
                errors={"passengers": [f"Must be between 1 and {MAX_PASSENGERS}."]},
            )
        vehicle = vehicle_class_resolve(vehicle_type=vehicle_type, passengers=passengers)
        if depart_at is None:
            depart_at = timezone.now()
        elif timezone.is_naive(depart_at):
            depart_at = depart_at.replace(tzinfo=dt.UTC)  # contract 2.1: departAt is UTC
        origin = _locate(pickup, field_name="pickup", worldwide=worldwide)
        destination = _locate(dropoff, field_name="dropoff", worldwide=worldwide, near=origin)
        # A shared pickup name means the namesake near the dropoff ("Bangor" ->
        # "Llanfairpwllgwyngyll"); answers are cached, so this costs a dict lookup.
        origin = _locate(pickup, field_name="pickup", worldwide=worldwide, near=destination)
        places_require_precise(
            pickup=origin, dropoff=destination, pickup_text=pickup, dropoff_text=dropoff
        )
        meet_and_greet_require_airport(meet_and_greet=meet_and_greet, pickup=origin)
    except DomainError as problem:
        if problem.errors:
            problem.errors = _rename(problem.errors, field_names)
        raise
    route = router_get().route(origin, destination, depart_at=depart_at)

    if fare_override is not None:
        fare = gbp(fare_override)
        rules = [
            {"code": "partner_fare", "label": "Fare agreed by the sender", "amountGBP": float(fare)}
        ]
        source = {
            "kind": "partner",
            "name": getattr(account, "name", "Partner"),
            "reference": getattr(account, "slug", ""),
            "effectiveFrom": None,
            "status": "partner-supplied fare",
            "uncertain": [],
            "sourceUrl": None,
            "licensingAuthority": (
                licensing_authority_at(origin.lat, origin.lng) if origin.in_uk else None
            ),
        }
        band, uncertain = "", []
        snapshot, own = None, None
    else:
        tariff = tariff_select(
            pickup=origin, distance_m=route.distance_m, depart_at=depart_at, account=account
        )
        options = FareOptions(
            passengers=passengers,
            vehicle_type=vehicle,
            vehicle_factor=vehicle_factor_for(tariff, vehicle),
            meet_and_greet=meet_and_greet,
            meet_and_greet_gbp=Decimal(str(settings.PRICING_MEET_AND_GREET_GBP)),
            pickup_is_airport=origin.is_airport,
            pickup_label=origin.label,
            dropoff_is_airport=destination.is_airport,
            cruise_mps=Decimal(str(settings.PRICING_METER_CRUISE_MPH)) * MPH_TO_MPS,
            nation=pickup_nation(origin),
        )
        try:
            result = fare_compute(
                tariff,
                distance_m=route.distance_m,
                duration_s=route.duration_s,
                depart_at=depart_at,
                options=options,
            )
        except TariffIncomplete as exc:  # selection checked; only a race gets here
            raise DomainError("tariff_incomplete", str(exc)) from exc
        fare = result.fare
        rules = [{**rule, "amountGBP": float(rule["amountGBP"])} for rule in result.applied_rules]
        uncertain = list(tariff.source["uncertain"]) + [
            u for u in result.uncertain if u not in tariff.source["uncertain"]
        ]
        authority = licensing_authority_at(origin.lat, origin.lng) if origin.in_uk else None
        note = _network_note(tariff, authority)
        if note is not None:
            uncertain.append(note)
        # What the journey adds to the tariff's part (pricing.tariff_snapshots).
        own = {"uncertain": uncertain, "band": result.band, "licensingAuthority": authority}
        source = {**tariff.source, **own}
        estimate = source.get("estimate")
        if estimate and result.band in estimate.get("errorPctByBand", ()):
            # The measured error of the band that priced it (night differs more than day).
            error = {"errorPct": estimate["errorPctByBand"][result.band]}
            source["estimate"] = {**estimate, **error}
            own["estimate"] = error
        snapshot = tariff.source_digest
        line = estimate_rule(source)
        if line is not None:
            rules.append(line)
        band = result.band
    return PricedJourney(
        fare=fare,
        currency="GBP",
        distance_miles=route.distance_miles,
        duration_minutes=route.duration_minutes,
        vehicle_type=vehicle,
        passengers=passengers,
        depart_at=depart_at,
        applied_rules=rules,
        tariff_source=source,
        pickup=origin,
        dropoff=destination,
        meet_and_greet=meet_and_greet,
        worldwide=worldwide,
        band=band,
        uncertain=uncertain,
        distance_source=route.source,
        tariff_snapshot=snapshot,
        tariff_source_own=own,
    )


def quote_ttl() -> dt.timedelta:
    return dt.timedelta(hours=settings.PRICING_QUOTE_TTL_HOURS)


def quote_create(
    *,
    pickup: str,
    dropoff: str,
    passengers: int,
    vehicle_type: str | None,
    depart_at: dt.datetime | None,
    meet_and_greet: bool = False,
    worldwide: bool = False,
    account=None,
    source: str = Quote.Source.SERVICE,
    field_names: Mapping[str, str] | None = None,
) -> Quote:
    """Price a journey and store it as a quote valid 24 hours (contract 2.3).

    Guarantees: the fare, appliedRules and tariffSource are frozen on the row as priced;
    ``expires_at`` is ``created_at`` + 24 h. Raises what :func:`quote_price` raises.
    """
    priced = quote_price(
        pickup=pickup,
        dropoff=dropoff,
        passengers=passengers,
        vehicle_type=vehicle_type,
        depart_at=depart_at,
        meet_and_greet=meet_and_greet,
        worldwide=worldwide,
        account=account,
        field_names=field_names,
    )
    now = timezone.now()
    quote = Quote(
        source=source,
        pickup=pickup[:300],
        pickup_label=priced.pickup.label[:300],
        pickup_lat=priced.pickup.lat,
        pickup_lng=priced.pickup.lng,
        dropoff=dropoff[:300],
        dropoff_label=priced.dropoff.label[:300],
        dropoff_lat=priced.dropoff.lat,
        dropoff_lng=priced.dropoff.lng,
        pickup_place=priced.pickup.as_json(),
        dropoff_place=priced.dropoff.as_json(),
        passengers=priced.passengers,
        vehicle_type=priced.vehicle_type,
        depart_at=priced.depart_at,
        asap=depart_at is None,
        meet_and_greet=meet_and_greet,
        worldwide=worldwide,
        fare=priced.fare,
        currency=priced.currency,
        applied_rules=priced.applied_rules,
        **priced.tariff_source_columns(),
        distance_miles=priced.distance_miles,
        duration_minutes=priced.duration_minutes,
        distance_source=priced.distance_source,
        account=account,
        created_at=now,
        expires_at=now + quote_ttl(),
    )
    # One INSERT compiled once (core.fast_paths): the quote endpoints' one write.
    return fast_paths.row_insert(Quote).insert(quote)
