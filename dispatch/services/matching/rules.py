"""The matcher's ORM form: the conditions under which a candidate fails
(:func:`_driver_rules`, in the order the trail gives reasons: an assignment by hand is held
to them, and bench/bench_dispatch.py scans every driver with them), and the search rings.
The SQL form (``dispatch.services.matching.sql``) is their negation, side by side, and
the trail's skip reasons in the same order."""

from __future__ import annotations

from django.db.models import F, Q

from dispatch import conf
from dispatch.models import SkipReason, Tier
from dispatch.services.matching.requirements import JobRequirements
from drivers.models import APPROVED_STAGES
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
