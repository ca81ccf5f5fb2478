"""The matcher's ORM form: the conditions under which a candidate fails
(:func:`_driver_rules`, which give skipped candidates the first reason that failed for the
trail), the vehicle rows they run over, and the search rings. The SQL form
(``dispatch.services.matching.sql``) is their negation, side by side."""

from __future__ import annotations

from django.db.models import Count, Exists, F, OuterRef, Q, QuerySet, Subquery
from django.db.models.functions import Coalesce

from core.geo import (
    bounding_box,
    distance_sq_km_expression,
    haversine_km,
)
from dispatch import conf
from dispatch.models import Offer, OfferStatus, SkipReason, Tier
from dispatch.services.matching.requirements import Candidate, JobRequirements, jobs_overlapping
from drivers.models import APPROVED_STAGES, Corridor, NetworkTier, Vehicle
from pricing.vehicles import VEHICLE_CLASSES_SERVING


def _driver_rules(*, job: JobRequirements, seen_fails: Q) -> list[tuple[str, Q]]:
    """(reason, condition under which a vehicle row fails), in the order reasons are given.

    ``seen_fails``: the rows whose driver has no recent position in the index."""
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
        (SkipReason.NOT_SEEN_RECENTLY, seen_fails),
        (SkipReason.AT_CAPACITY, Q(overlapping_jobs__gte=F("driver__max_jobs"))),
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


def _vehicle_rows(*, tier: int, job: JobRequirements) -> QuerySet:
    """Active vehicles of the tier's drivers, with what the rules need annotated."""
    pool = Vehicle.objects.filter(active=True).annotate(
        operator_authority=F("driver__approved_by__operator_licence__licensing_authority"),
        offer_pending=Exists(
            Offer.objects.filter(driver_id=OuterRef("driver_id"), status=OfferStatus.OPEN)
        ),
        overlapping_jobs=Coalesce(
            Subquery(
                jobs_overlapping(job)
                .filter(driver_id=OuterRef("driver_id"))
                .values("driver_id")
                .annotate(n=Count("pk"))
                .values("n")[:1]
            ),
            0,
        ),
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


def _vehicles_by_row_position(*, tier: int, job: JobRequirements, radius_km: float) -> QuerySet:
    """:func:`_vehicle_rows` of drivers whose row puts them within ``radius_km`` of the
    pickup (where they last went online): the trail's view of drivers the index does not
    hold (offline, or silent for too long)."""
    min_lat, max_lat, min_lng, max_lng = bounding_box(job.pickup_lat, job.pickup_lng, radius_km)
    return (
        _vehicle_rows(tier=tier, job=job)
        .filter(
            driver__last_lat__gte=min_lat,
            driver__last_lat__lte=max_lat,
            driver__last_lng__gte=min_lng,
            driver__last_lng__lte=max_lng,
        )
        .annotate(
            dead_sq=distance_sq_km_expression(
                "driver__last_lat", "driver__last_lng", job.pickup_lat, job.pickup_lng
            )
        )
        .filter(dead_sq__lte=radius_km * radius_km)
    )


def _rings(tier: int, *, searching: bool = False) -> list[float]:
    rings = list(conf.search_rings_km())
    if tier == Tier.NATIONAL:
        furthest = conf.national_pickup_radius_km()
        rings = [r for r in rings if r < furthest] + [furthest]
    elif searching:
        # A city centre has hundreds of local drivers inside the first ring, and the cost
        # of a ring is the drivers in it; a quarter of its radius (a sixteenth of the
        # drivers) usually holds a free one already.
        rings.insert(0, rings[0] / 4)
    return rings


def _as_candidate(
    tier: int, vehicle: Vehicle, job: JobRequirements, *, position: tuple[float, float], reason: str
) -> Candidate:
    driver = vehicle.driver
    driver.last_lat, driver.last_lng = position  # where the index has them, for the offer
    return Candidate(
        tier=tier,
        driver=driver,
        vehicle=vehicle,
        dead_km=haversine_km(*position, job.pickup_lat, job.pickup_lng),
        # A national driver works for their own licensed operator: the job is subcontracted.
        subcontracted_to=driver.approved_by if tier == Tier.NATIONAL else None,
        reason=reason,
    )
