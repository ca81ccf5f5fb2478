"""The desk's and operators' hands on dispatch: a manual assignment, a driver's
release of a job, the end of dispatch for a booking that left the queue, and the busy span
of an open offer after an amendment."""

from __future__ import annotations

from datetime import datetime

from django.db import transaction
from django.db.models import F
from django.utils import timezone

from bookings.models import Booking, BookingStatus
from bookings.services import booking_status_change
from bookings.transitions import ASSIGNABLE, TERMINAL
from core.errors import DomainError
from dispatch.models import (
    AttemptOutcome,
    Offer,
    OfferStatus,
    Tier,
)
from dispatch.services import cancellations, matching
from dispatch.services.matching import JobRequirements
from dispatch.services.offers.trail import (
    _attempt,
    _current_round,
    _driver_take_job,
    _lock_booking,
    _offer_withdraw,
)
from drivers.models import Driver, Vehicle


def booking_assign_manual(
    *,
    booking_id: int,
    driver: Driver,
    vehicle: Vehicle | None = None,
    actor: str,
    detail: dict | None = None,
    now: datetime | None = None,
    matched: bool = False,
) -> Offer:
    """Assign a driver by hand (the dispatch desk in the admin, an operator's dashboard for
    its own fleet), bypassing the matcher's filters; ``detail`` joins the status event's.

    Guarantees: any open offer is withdrawn first (a late accept of it gets 409
    ``offer_closed``); with ``matched`` (an operator's assignment) the driver and vehicle
    must pass central dispatch's rules of the job (class, wheelchair access, seats,
    licences and licensing area: ``matching.assignment_refusal``; else 400
    ``invalid_input`` naming the rule); the driver's job load is still guarded (409
    ``driver_busy``), and
    the assignment is an accepted offer row like any other, so the driver's seat is
    counted and released exactly as for a job they accepted themselves.
    """
    now = now or timezone.now()
    with transaction.atomic():
        booking = _lock_booking(booking_id)
        if booking.status not in ASSIGNABLE:
            raise DomainError(
                "invalid_transition",
                f"Booking {booking.reference} is {booking.status}; it cannot be assigned.",
            )
        open_offer = (
            Offer.objects.select_for_update(no_key=True)
            .filter(booking=booking, status=OfferStatus.OPEN)
            .first()
        )
        round_ = _current_round(booking)
        vehicle = vehicle or driver.vehicles.filter(active=True).order_by("pk").first()
        if matched:
            _assignment_require_matching(booking, vehicle)
        if open_offer is not None:
            _offer_withdraw(booking, open_offer, now, f"Withdrawn for manual assignment by {actor}")
        busy_from, busy_until = _driver_take_job(driver.pk, booking)
        offer = Offer.objects.create(
            busy_from=busy_from,
            busy_until=busy_until,
            booking=booking,
            round=round_,
            tier=Tier.MANUAL,
            driver=driver,
            vehicle=vehicle,
            status=OfferStatus.ACCEPTED,
            created_at=now,
            expires_at=now,
            responded_at=now,
            actor=actor[:200],
        )
        booking_status_change(
            booking=booking,
            to_status=BookingStatus.ACCEPTED,
            actor=actor,
            detail={"offerId": offer.pk, "driverId": driver.pk, "manual": True, **(detail or {})},
            driver_id=driver.pk,
            vehicle_id=vehicle.pk if vehicle else None,
        )
        _attempt(
            booking,
            round_,
            AttemptOutcome.ASSIGNED,
            tier=Tier.MANUAL,
            driver=driver,
            vehicle=vehicle,
            offer=offer,
            detail=f"Assigned by {actor}"[:300],
        )
        return offer


def _assignment_require_matching(booking: Booking, vehicle: Vehicle | None) -> None:
    """400 ``invalid_input`` (naming ``driver``) unless central dispatch could offer the
    job to this driver and vehicle."""
    if vehicle is None:
        reason_words = "the driver has no active vehicle"
    else:
        job = JobRequirements.for_booking(booking)
        reason = matching.assignment_refusal(job=job, vehicle_id=vehicle.pk)
        if not reason:
            return
        reason_words = matching.ASSIGNMENT_REFUSAL_WORDS[reason]
    raise DomainError(
        "invalid_input",
        f"Central dispatch would not give {booking.reference} to this driver: {reason_words}.",
        errors={"driver": [f"Not suitable for this job: {reason_words}."]},
    )


def offer_busy_window_refresh(*, booking_id: int) -> int:
    """An amended booking (a new pickup time, a flight that moved it): the accepted job's
    busy span follows it, so capacity in time counts it where it now is."""
    booking = Booking.objects.filter(pk=booking_id).only("pickup_time", "duration_minutes").first()
    if booking is None:
        return 0
    busy_from, busy_until = matching.job_busy_window(booking.pickup_time, booking.duration_minutes)
    return Offer.objects.filter(
        booking_id=booking_id, status=OfferStatus.ACCEPTED, released_at__isnull=True
    ).update(busy_from=busy_from, busy_until=busy_until)


def driver_job_release(*, booking_id: int, now: datetime | None = None) -> bool:
    """Stop counting a finished or cancelled job against its driver; True when released.

    The guarded UPDATE on ``released_at`` makes this safe to call from several places
    (driver status, cancellation) and to retry: the driver's load drops exactly once.
    """
    now = now or timezone.now()
    with transaction.atomic():
        accepted = (
            Offer.objects.filter(
                booking_id=booking_id,
                status=OfferStatus.ACCEPTED,
                released_at__isnull=True,
                driver__isnull=False,
            )
            .values_list("pk", "driver_id")
            .first()
        )
        if accepted is None:
            return False
        offer_id, driver_id = accepted
        released = Offer.objects.filter(pk=offer_id, released_at__isnull=True).update(
            released_at=now
        )
        if released:
            Driver.objects.filter(pk=driver_id, current_jobs__gt=0).update(
                current_jobs=F("current_jobs") - 1
            )
        return bool(released)


def booking_dispatch_stop(*, booking_id: int, now: datetime | None = None) -> None:
    """A booking that ended: withdraw its open offer and free its driver. A cancelled one
    is also told, after commit, to the driver who held it and to the driver whose offer
    was open (``cancellations.cancellation_notices_enqueue``; each notice goes once)."""
    now = now or timezone.now()
    with transaction.atomic():
        booking = _lock_booking(booking_id)
        to_tell = set()
        for offer in Offer.objects.select_for_update(no_key=True).filter(
            booking=booking, status=OfferStatus.OPEN
        ):
            _offer_withdraw(booking, offer, now, f"Booking {booking.status}")
            if offer.driver_id is not None:
                to_tell.add(offer.driver_id)
        if booking.status in TERMINAL:
            driver_job_release(booking_id=booking.pk, now=now)
        if booking.status == BookingStatus.CANCELLED:
            if booking.driver_id is not None:
                to_tell.add(booking.driver_id)
            cancellations.cancellation_notices_enqueue(booking_id=booking.pk, driver_ids=to_tell)
