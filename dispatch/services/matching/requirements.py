"""What a job asks of a driver (:class:`JobRequirements`), its busy span, and the
:class:`Candidate` a tier yields; the tiers themselves."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime, timedelta
from decimal import Decimal

from django.db.models import Q, QuerySet

from core.geo import (
    km_to_miles,
)
from core.localtime import local_datetime
from dispatch import conf
from dispatch.models import Offer, OfferStatus, PartnerFleet, Tier
from drivers.models import Driver, Vehicle
from pricing.vehicles import vehicle_class_needs_wheelchair

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
    # The span the job keeps its driver busy (job_busy_window); None: count every job held.
    busy_from: datetime | None = None
    busy_until: datetime | None = None

    @classmethod
    def for_booking(cls, booking) -> JobRequirements:
        # Licences and plates expire at the end of a UK calendar day.
        local = local_datetime(booking.pickup_time)
        return cls(
            pickup_lat=booking.pickup_lat,
            pickup_lng=booking.pickup_lng,
            dropoff_lat=booking.dropoff_lat,
            dropoff_lng=booking.dropoff_lng,
            pickup_date=local.date(),
            passengers=booking.passengers,
            vehicle_type=booking.vehicle_type,
            wheelchair=bool(booking.wheelchair_access)
            or vehicle_class_needs_wheelchair(booking.vehicle_type),
            **dict(
                zip(
                    ("busy_from", "busy_until"),
                    job_busy_window(booking.pickup_time, booking.duration_minutes),
                    strict=True,
                )
            ),
        )

    @property
    def located(self) -> bool:
        return self.pickup_lat is not None and self.pickup_lng is not None


def job_busy_window(pickup_time: datetime, duration_minutes: int | None) -> tuple:
    """The span a job keeps its driver busy (capacity in time, issue 34): from its pickup
    to its estimated end (the priced minutes, else ``conf.unknown_duration_minutes``) plus
    ``conf.travel_to_next_pickup_minutes`` to reach the next pickup."""
    minutes = duration_minutes if duration_minutes else conf.unknown_duration_minutes()
    return pickup_time, pickup_time + timedelta(
        minutes=minutes + conf.travel_to_next_pickup_minutes()
    )


def jobs_overlapping(job: JobRequirements) -> QuerySet:
    """The accepted, unreleased jobs (offer rows) whose busy span overlaps ``job``'s; a
    row without a span (from before) overlaps everything."""
    held = Offer.objects.filter(status=OfferStatus.ACCEPTED, released_at__isnull=True)
    if job.busy_from is None:
        return held
    return held.filter(
        Q(busy_from__isnull=True) | Q(busy_from__lt=job.busy_until, busy_until__gt=job.busy_from)
    )


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
