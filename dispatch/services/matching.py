"""The matcher of seed 1.3: which driver or fleet gets the next offer, tier by tier.

Tier 1: approved local drivers whose operating radius around their base covers the pickup.
Tier 2: national network drivers with a corridor from the pickup to the dropoff.
Tier 3: approved partner fleets (offered through the fleet account's webhook).

Filters in tiers 1 and 2: online and seen recently, job load below maximum, no other job
card pending, seats >= passengers, vehicle class, wheelchair access for wav, driver
licence and vehicle plate valid on the pickup date, and UK licensing: driver, vehicle and
the operator that accepts the job are licensed by the same authority. Inside a tier the
order is dead mileage (driver position to pickup), then current job load.

Candidates are (driver, vehicle) pairs found through a bounding box on the indexed
position columns, searched in growing rings so that a busy city costs the same as an
empty county. Every filter is written once, as the SQL condition under which a candidate
fails (:func:`_driver_rules`): eligible candidates pass them all, skipped ones carry the
first that failed as their reason in the trail.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from decimal import Decimal
from zoneinfo import ZoneInfo

from django.conf import settings
from django.db.models import Case, Exists, F, OuterRef, Q, QuerySet, Value, When
from django.db.models import CharField as CharFieldType

from dispatch import conf
from dispatch.geo import bounding_box, distance_sq_km_expression, haversine_km, km_to_miles
from dispatch.models import Offer, OfferStatus, PartnerFleet, SkipReason, Tier
from drivers.models import APPROVED_STAGES, Corridor, Driver, NetworkTier, Vehicle

# Which vehicle classes may serve a requested class: the same class or a roomier or
# better one at the quoted fare. Seats are checked separately against passengers.
VEHICLE_CLASSES_SERVING: dict[str, frozenset[str]] = {
    "saloon": frozenset({"saloon", "estate", "executive", "luxury"}),
    "estate": frozenset({"estate"}),
    "executive": frozenset({"executive", "luxury"}),
    "luxury": frozenset({"luxury"}),
    "5seater": frozenset({"5seater", "6seater", "7seater", "mpv"}),
    "6seater": frozenset({"6seater", "7seater", "mpv"}),
    "7seater": frozenset({"7seater", "mpv"}),
    "mpv": frozenset({"mpv"}),
    "wav": frozenset({"wav"}),
}

DRIVER_TIERS = (Tier.LOCAL, Tier.NATIONAL)
TIERS = (Tier.LOCAL, Tier.NATIONAL, Tier.FLEET)


@dataclass(frozen=True)
class JobRequirements:
    """What a booking asks of a driver, independent of how the booking is stored."""

    pickup_lat: float | None
    pickup_lng: float | None
    dropoff_lat: float | None
    dropoff_lng: float | None
    pickup_date: date
    passengers: int
    vehicle_type: str
    wheelchair: bool

    @classmethod
    def for_booking(cls, booking) -> JobRequirements:
        # Licences and plates expire at the end of a UK calendar day.
        local = booking.pickup_time.astimezone(ZoneInfo(settings.TARIFF_TIME_ZONE))
        return cls(
            pickup_lat=booking.pickup_lat,
            pickup_lng=booking.pickup_lng,
            dropoff_lat=booking.dropoff_lat,
            dropoff_lng=booking.dropoff_lng,
            pickup_date=local.date(),
            passengers=booking.passengers,
            vehicle_type=booking.vehicle_type,
            wheelchair=bool(booking.wheelchair_access) or booking.vehicle_type == "wav",
        )

    @property
    def located(self) -> bool:
        return self.pickup_lat is not None and self.pickup_lng is not None


@dataclass(frozen=True)
class Candidate:
    tier: int
    driver: Driver | None = None
    vehicle: Vehicle | None = None
    fleet: PartnerFleet | None = None
    dead_km: float | None = None
    subcontracted_to: object | None = None  # partners.Account, s55A
    reason: str = ""  # empty when eligible

    @property
    def dead_miles(self) -> Decimal | None:
        return None if self.dead_km is None else km_to_miles(self.dead_km)


def _driver_rules(*, job: JobRequirements, now: datetime) -> list[tuple[str, Q]]:
    """(reason, condition under which a vehicle row fails), in the order reasons are given."""
    seen_after = now - timedelta(seconds=conf.driver_seen_within_seconds())
    classes = VEHICLE_CLASSES_SERVING.get(job.vehicle_type, frozenset({job.vehicle_type}))
    rules = [
        (
            SkipReason.NOT_APPROVED,
            ~Q(driver__stage__in=APPROVED_STAGES) | Q(driver__approved_at__isnull=True),
        ),
        (SkipReason.LICENCE_EXPIRED, Q(driver__licence_expiry__lt=job.pickup_date)),
        (SkipReason.PLATE_EXPIRED, Q(plate_expiry__lt=job.pickup_date)),
        (
            SkipReason.LICENSING_MISMATCH,
            ~Q(licensing_authority=F("driver__licensing_authority"))
            | (
                Q(operator_authority__isnull=False)
                & ~Q(operator_authority=F("driver__licensing_authority"))
            ),
        ),
        (SkipReason.OFFLINE, Q(driver__online=False)),
        (
            SkipReason.NOT_SEEN_RECENTLY,
            Q(driver__last_seen_at__isnull=True) | Q(driver__last_seen_at__lt=seen_after),
        ),
        (SkipReason.AT_CAPACITY, Q(driver__current_jobs__gte=F("driver__max_jobs"))),
        (SkipReason.OFFER_PENDING, Q(offer_pending=True)),
        (SkipReason.TOO_FEW_SEATS, Q(seats__lt=job.passengers)),
        (SkipReason.WRONG_CLASS, ~Q(vehicle_class__in=sorted(classes))),
    ]
    if job.wheelchair:
        rules.append((SkipReason.NO_WHEELCHAIR_ACCESS, Q(wheelchair_accessible=False)))
    return rules


def _corridor_driver_ids(job: JobRequirements) -> QuerySet:
    """Drivers with a corridor joining the pickup and the dropoff, in either direction."""
    radius_sq = F("radius_km") * F("radius_km")
    return (
        Corridor.objects.annotate(
            o_pick=distance_sq_km_expression(
                "origin_lat", "origin_lng", job.pickup_lat, job.pickup_lng
            ),
            d_drop=distance_sq_km_expression(
                "destination_lat", "destination_lng", job.dropoff_lat, job.dropoff_lng
            ),
            d_pick=distance_sq_km_expression(
                "destination_lat", "destination_lng", job.pickup_lat, job.pickup_lng
            ),
            o_drop=distance_sq_km_expression(
                "origin_lat", "origin_lng", job.dropoff_lat, job.dropoff_lng
            ),
        )
        .filter(
            Q(o_pick__lte=radius_sq, d_drop__lte=radius_sq)
            | Q(d_pick__lte=radius_sq, o_drop__lte=radius_sq)
        )
        .values("driver_id")
    )


def _vehicle_pool(
    *, tier: int, job: JobRequirements, radius_km: float, online_only: bool
) -> QuerySet:
    """Active vehicles of the tier's drivers positioned within ``radius_km`` of the pickup."""
    min_lat, max_lat, min_lng, max_lng = bounding_box(job.pickup_lat, job.pickup_lng, radius_km)
    pool = (
        Vehicle.objects.filter(
            active=True,
            # online IN (true, false) still lets PostgreSQL walk the (online, lat, lng) index.
            driver__online__in=[True] if online_only else [True, False],
            driver__last_lat__gte=min_lat,
            driver__last_lat__lte=max_lat,
            driver__last_lng__gte=min_lng,
            driver__last_lng__lte=max_lng,
        )
        .annotate(
            dead_sq=distance_sq_km_expression(
                "driver__last_lat", "driver__last_lng", job.pickup_lat, job.pickup_lng
            ),
            operator_authority=F("driver__approved_by__operator_licence__licensing_authority"),
            offer_pending=Exists(
                Offer.objects.filter(driver_id=OuterRef("driver_id"), status=OfferStatus.OPEN)
            ),
        )
        .filter(dead_sq__lte=radius_km * radius_km)
    )
    if tier == Tier.LOCAL:
        pool = pool.annotate(
            base_sq=distance_sq_km_expression(
                "driver__base_lat", "driver__base_lng", job.pickup_lat, job.pickup_lng
            )
        ).filter(
            driver__network=NetworkTier.LOCAL,
            base_sq__lte=F("driver__operating_radius_km") * F("driver__operating_radius_km"),
        )
    else:
        pool = pool.filter(driver__network=NetworkTier.NATIONAL)
        if job.dropoff_lat is None or job.dropoff_lng is None:
            return pool.none()
        pool = pool.filter(driver_id__in=_corridor_driver_ids(job))
    return pool.select_related("driver")


def _rings(tier: int) -> list[float]:
    rings = list(conf.search_rings_km())
    if tier == Tier.NATIONAL:
        furthest = conf.national_pickup_radius_km()
        rings = [r for r in rings if r < furthest] + [furthest]
    return rings


def _as_candidate(tier: int, vehicle: Vehicle, job: JobRequirements, reason: str = "") -> Candidate:
    driver = vehicle.driver
    dead_km = haversine_km(driver.last_lat, driver.last_lng, job.pickup_lat, job.pickup_lng)
    return Candidate(
        tier=tier,
        driver=driver,
        vehicle=vehicle,
        dead_km=dead_km,
        # A national driver works for their own licensed operator: the job is subcontracted.
        subcontracted_to=driver.approved_by if tier == Tier.NATIONAL else None,
        reason=reason,
    )


def driver_candidates(
    *,
    tier: int,
    job: JobRequirements,
    now: datetime,
    exclude_driver_ids: Iterable[int] = (),
    limit: int = 1,
) -> list[Candidate]:
    """Eligible drivers of a driver tier, nearest first (then least loaded)."""
    if not job.located:
        return []
    excluded = list(exclude_driver_ids)
    rules = _driver_rules(job=job, now=now)
    eligible = Q()
    for _reason, fails in rules:
        eligible &= ~fails
    rings = _rings(tier)
    for ring in rings:
        pool = _vehicle_pool(tier=tier, job=job, radius_km=ring, online_only=True).filter(eligible)
        if excluded:
            pool = pool.exclude(driver_id__in=excluded)
        # A driver with two eligible vehicles appears twice; over-fetch and keep the first.
        rows = pool.order_by("dead_sq", "driver__current_jobs", "driver_id", "id")[: limit * 3]
        found: list[Candidate] = []
        seen: set[int] = set()
        for vehicle in rows:
            if vehicle.driver_id not in seen:
                seen.add(vehicle.driver_id)
                found.append(_as_candidate(tier, vehicle, job))
        if len(found) >= limit or ring == rings[-1]:
            return found[:limit]
    return []


def driver_skipped(
    *, tier: int, job: JobRequirements, now: datetime, limit: int
) -> list[Candidate]:
    """Drivers of a tier near the pickup that fail a filter, each with the first reason."""
    if not job.located:
        return []
    rules = _driver_rules(job=job, now=now)
    reason = Case(
        *[When(fails, then=Value(str(code))) for code, fails in rules],
        default=Value(""),
        output_field=CharFieldType(),
    )
    rows = (
        _vehicle_pool(tier=tier, job=job, radius_km=_rings(tier)[-1], online_only=False)
        .annotate(skip_reason=reason)
        .exclude(skip_reason="")
        .order_by("dead_sq", "driver_id", "id")[:limit]
    )
    return [_as_candidate(tier, vehicle, job, reason=vehicle.skip_reason) for vehicle in rows]


def _fleet_reason(fleet: PartnerFleet, job: JobRequirements) -> str:
    account = fleet.account
    if account.kind != "partner" or not account.approved:
        return SkipReason.NOT_APPROVED
    licence = getattr(account, "operator_licence", None)
    if licence is not None and licence.licence_expiry < job.pickup_date:
        return SkipReason.LICENCE_EXPIRED
    if not account.webhook_url or account.webhook_disabled_at is not None:
        return SkipReason.NO_WEBHOOK
    if fleet.vehicle_classes and job.vehicle_type not in fleet.vehicle_classes:
        return SkipReason.WRONG_CLASS
    if job.passengers > fleet.max_passengers:
        return SkipReason.TOO_FEW_SEATS
    if job.wheelchair and not fleet.wheelchair_accessible:
        return SkipReason.NO_WHEELCHAIR_ACCESS
    if fleet.coverage_radius_km is not None and fleet.coverage_lat is not None:
        if not job.located:
            return SkipReason.PICKUP_NOT_LOCATED
        distance = haversine_km(
            fleet.coverage_lat, fleet.coverage_lng, job.pickup_lat, job.pickup_lng
        )
        if distance > fleet.coverage_radius_km:
            return SkipReason.OUTSIDE_COVERAGE
    return ""


def _fleet_distance(fleet: PartnerFleet, job: JobRequirements) -> float:
    if fleet.coverage_lat is None or fleet.coverage_lng is None or not job.located:
        return math.inf  # a nationwide fleet comes after fleets based near the pickup
    return haversine_km(fleet.coverage_lat, fleet.coverage_lng, job.pickup_lat, job.pickup_lng)


def fleet_candidates(
    *, job: JobRequirements, exclude_fleet_ids: Iterable[int] = (), include_skipped: bool = False
) -> list[Candidate]:
    """Active partner fleets, nearest coverage first; skipped ones only when asked for."""
    fleets = (
        PartnerFleet.objects.select_related("account", "account__operator_licence")
        .filter(active=True)
        .exclude(pk__in=list(exclude_fleet_ids))
    )
    ranked = sorted(fleets, key=lambda f: (_fleet_distance(f, job), f.pk))
    result = []
    for fleet in ranked:
        reason = _fleet_reason(fleet, job)
        if bool(reason) == include_skipped:
            result.append(
                Candidate(
                    tier=Tier.FLEET, fleet=fleet, subcontracted_to=fleet.account, reason=reason
                )
            )
    return result


def candidate_next(
    *,
    tier: int,
    job: JobRequirements,
    now: datetime,
    exclude_driver_ids: Iterable[int] = (),
    exclude_fleet_ids: Iterable[int] = (),
) -> Candidate | None:
    """The best eligible candidate of one tier, or None when the tier has nobody left."""
    if tier == Tier.FLEET:
        found = fleet_candidates(job=job, exclude_fleet_ids=exclude_fleet_ids)
    else:
        found = driver_candidates(
            tier=tier, job=job, now=now, exclude_driver_ids=exclude_driver_ids
        )
    return found[0] if found else None


def skipped_candidates(*, tier: int, job: JobRequirements, now: datetime) -> list[Candidate]:
    """Candidates of a tier that were passed over, with reasons, for the dispatch trail."""
    limit = conf.trail_skipped_limit()
    if tier == Tier.FLEET:
        return fleet_candidates(job=job, include_skipped=True)[:limit]
    return driver_skipped(tier=tier, job=job, now=now, limit=limit)
