"""Answers to an offer: a driver accepts or declines, an offer times out, a partner fleet
answers through its status hook."""

from __future__ import annotations

from datetime import datetime

from django.db import transaction
from django.utils import timezone

from bookings.models import Booking, BookingStatus
from bookings.services import booking_status_change
from core.errors import DomainError
from dispatch.models import (
    AttemptOutcome,
    Offer,
    OfferStatus,
)
from dispatch.services.offers.trail import (
    _attempt,
    _driver_take_job,
    _ensure_open,
    _lock_booking,
    _lock_offer_for,
    _offer_close,
)
from drivers.models import Driver


def offer_accept(*, offer_id: int, driver: Driver, now: datetime | None = None) -> Offer:
    """The driver takes the job.

    Guarantees: only an open, unexpired offer can be accepted (else 409 ``offer_closed``),
    exactly one acceptance wins for a booking, and the driver's job load never exceeds
    their maximum (409 ``driver_busy``). The booking gets driver and vehicle, and the s55A
    subcontracted operator when the job left the local tier.
    """
    now = now or timezone.now()
    with transaction.atomic():
        booking, offer = _lock_offer_for(offer_id, driver)
        _ensure_open(offer, now)
        busy_from, busy_until = _driver_take_job(driver.pk, booking)
        Offer.objects.filter(pk=offer.pk).update(
            status=OfferStatus.ACCEPTED,
            responded_at=now,
            busy_from=busy_from,
            busy_until=busy_until,
        )
        booking_status_change(
            booking=booking,
            to_status=BookingStatus.ACCEPTED,
            actor=f"driver:{driver.pk}",
            detail={"offerId": offer.pk, "driverId": driver.pk},
            driver_id=driver.pk,
            vehicle_id=offer.vehicle_id,
            subcontracted_to_id=offer.subcontracted_to_id,
        )
        _attempt(
            booking,
            offer.round,
            AttemptOutcome.ACCEPTED,
            tier=offer.tier,
            driver=driver,
            vehicle_id=offer.vehicle_id,
            offer=offer,
            dead_miles=offer.dead_miles,
        )
        offer.refresh_from_db()
        return offer


def offer_decline(*, offer_id: int, driver: Driver, now: datetime | None = None) -> Offer:
    """The driver turns the job down; the next candidate is tried after commit."""
    now = now or timezone.now()
    with transaction.atomic():
        booking, offer = _lock_offer_for(offer_id, driver)
        _ensure_open(offer, now)
        _offer_close(booking, offer, OfferStatus.DECLINED, f"driver:{driver.pk}", now)
        offer.refresh_from_db()
        return offer


def offer_expire(*, offer_id: int, now: datetime | None = None) -> bool:
    """Time out an open offer whose deadline has passed; True when it did.

    Safe to run early or twice: an offer that is not open or not yet due is left alone.
    """
    now = now or timezone.now()
    with transaction.atomic():
        offer = Offer.objects.filter(pk=offer_id).only("booking_id").first()
        if offer is None:
            return False
        booking = _lock_booking(offer.booking_id)
        offer = Offer.objects.select_for_update(no_key=True).get(pk=offer_id)
        if offer.status != OfferStatus.OPEN or offer.expires_at > now:
            return False
        _offer_close(booking, offer, OfferStatus.EXPIRED, "dispatch:timeout", now)
        return True


def offers_expire_overdue(*, now: datetime | None = None) -> int:
    """Sweep for open offers past their deadline (the safety net under countdown tasks)."""
    now = now or timezone.now()
    overdue = Offer.objects.filter(status=OfferStatus.OPEN, expires_at__lte=now).values_list(
        "pk", flat=True
    )
    return sum(offer_expire(offer_id=pk, now=now) for pk in list(overdue[:500]))


def fleet_offer_answer(
    *,
    account,
    booking: Booking,
    accept: bool,
    now: datetime | None = None,
    detail: dict | None = None,
) -> Offer:
    """A partner fleet answers a tier-3 offer through the booking-status hook (contract 5.2).

    Only the fleet's own open, unexpired offer can be answered (else 409 ``offer_closed``).
    Accepting records the fleet's account as the s55A subcontracted operator; the fleet
    reports its own driver through later status updates. ``detail`` (what the fleet sent:
    time, driver) is kept on the accepted event.
    """
    now = now or timezone.now()
    with transaction.atomic():
        locked = _lock_booking(booking.pk)
        offer = (
            Offer.objects.select_for_update(no_key=True)
            .filter(booking=locked, fleet__account=account, status=OfferStatus.OPEN)
            .first()
        )
        if offer is None:
            raise DomainError("offer_closed", f"No open offer of {locked.reference} to this fleet.")
        _ensure_open(offer, now)
        if not accept:
            _offer_close(locked, offer, OfferStatus.DECLINED, f"account:{account.slug}", now)
        else:
            Offer.objects.filter(pk=offer.pk).update(status=OfferStatus.ACCEPTED, responded_at=now)
            booking_status_change(
                booking=locked,
                to_status=BookingStatus.ACCEPTED,
                actor=f"account:{account.slug}",
                detail={**(detail or {}), "offerId": offer.pk, "fleet": account.slug},
                subcontracted_to_id=offer.subcontracted_to_id,
            )
            _attempt(
                locked,
                offer.round,
                AttemptOutcome.ACCEPTED,
                tier=offer.tier,
                fleet_id=offer.fleet_id,
                offer=offer,
            )
        offer.refresh_from_db()
        return offer
