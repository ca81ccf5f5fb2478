"""The steps every offer path shares, in the lock order of the package docstring: lock
the booking (then the offer, then the driver), record the dispatch trail, queue the next
step by name, and close or withdraw an open offer."""

from __future__ import annotations

from datetime import datetime

from django.db.models import F

from bookings.locks import booking_lock
from bookings.models import Booking, BookingStatus
from bookings.services import booking_status_change
from core.errors import DomainError
from core.task_queue import task_enqueue_on_commit
from dispatch.models import (
    AttemptOutcome,
    DispatchAttempt,
    Offer,
    OfferStatus,
)
from dispatch.services import matching
from dispatch.services.matching import JobRequirements
from drivers.models import Driver

DISPATCH_ACTOR = "dispatch"


def _lock_booking(booking_id: int) -> Booking:
    booking = booking_lock(pk=booking_id)
    if booking is None:
        raise DomainError("booking_not_found", f"No booking with id {booking_id}.")
    return booking


def _current_round(booking: Booking) -> int:
    exhausted = DispatchAttempt.objects.filter(
        booking=booking, outcome=AttemptOutcome.EXHAUSTED
    ).count()
    return exhausted + 1


def _attempt(booking: Booking, round_: int, outcome: str, **fields) -> DispatchAttempt:
    return DispatchAttempt.objects.create(booking=booking, round=round_, outcome=outcome, **fields)


def _enqueue(task_name: str, *args, countdown: int | None = None) -> None:
    """Queue a dispatch task once the current transaction has committed (by name:
    dispatch.tasks imports this module)."""
    task_enqueue_on_commit(f"dispatch.tasks.{task_name}", *args, countdown=countdown, robust=True)


def _lock_offer_for(offer_id: int, driver: Driver | None) -> tuple[Booking, Offer]:
    """Lock (booking, offer) in the fixed order; 404 unless the offer is this driver's."""
    offer = Offer.objects.filter(pk=offer_id).only("booking_id", "driver_id").first()
    if offer is None or (driver is not None and offer.driver_id != driver.pk):
        raise DomainError("offer_not_found", f"No offer {offer_id} for this driver.")
    booking = _lock_booking(offer.booking_id)
    offer = Offer.objects.select_for_update(no_key=True).get(pk=offer_id)
    return booking, offer


def _ensure_open(offer: Offer, now: datetime) -> None:
    if not offer.is_answerable_at(now):
        state = "timed out" if offer.status == OfferStatus.OPEN else offer.status
        raise DomainError("offer_closed", f"Offer {offer.pk} is no longer open ({state}).")


def _driver_take_job(driver_id: int, booking: Booking) -> tuple:
    """Count a job against the driver (no double booking): under the driver's lock, the
    jobs they hold whose busy span overlaps this one's must stay below their limit
    (capacity in time, issue 34); returns the job's busy span for its offer row."""
    job = JobRequirements.for_booking(booking)
    max_jobs = (
        Driver.objects.select_for_update(no_key=True)  # lock 3: the driver
        .filter(pk=driver_id)
        .values_list("max_jobs", flat=True)
        .first()
    )
    load = matching.jobs_overlapping(job).filter(driver_id=driver_id).count()
    if max_jobs is None or load >= max_jobs:
        raise DomainError(
            "driver_busy",
            "The driver already holds their maximum of jobs at that time "
            "(their other jobs overlap this one).",
        )
    Driver.objects.filter(pk=driver_id).update(current_jobs=F("current_jobs") + 1)
    return job.busy_from, job.busy_until


def _offer_close(booking: Booking, offer: Offer, status: str, actor: str, now: datetime) -> None:
    """Close an open offer and put the booking back in the queue for the next candidate."""
    Offer.objects.filter(pk=offer.pk).update(status=status, responded_at=now)
    outcome = AttemptOutcome.DECLINED if status == OfferStatus.DECLINED else AttemptOutcome.EXPIRED
    _attempt(
        booking,
        offer.round,
        outcome,
        tier=offer.tier,
        driver_id=offer.driver_id,
        vehicle_id=offer.vehicle_id,
        fleet_id=offer.fleet_id,
        offer=offer,
        dead_miles=offer.dead_miles,
    )
    if booking.status == BookingStatus.OFFERED:
        booking_status_change(
            booking=booking,
            to_status=BookingStatus.CONFIRMED,
            actor=actor,
            detail={"offerId": offer.pk, "outcome": status},
        )
        _enqueue("booking_dispatch_next", booking.pk)


def _offer_withdraw(booking: Booking, offer: Offer, now: datetime, detail: str) -> None:
    """Withdraw an open offer (caller holds the booking and offer locks) and record why."""
    Offer.objects.filter(pk=offer.pk).update(status=OfferStatus.WITHDRAWN, responded_at=now)
    _attempt(
        booking,
        offer.round,
        AttemptOutcome.WITHDRAWN,
        tier=offer.tier,
        driver_id=offer.driver_id,
        fleet_id=offer.fleet_id,
        offer=offer,
        detail=detail[:300],
    )
