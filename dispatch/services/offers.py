"""Offers: one driver (or fleet) at a time, tier after tier, until someone accepts.

Lock order, everywhere: the booking row, then the offer row, then the driver row, each
``FOR NO KEY UPDATE`` so that inserts referencing them (trail, events) never wait. Holding
the booking lock serialises everything that happens to one booking (dispatch steps,
accepts, declines, timeouts, manual assignment), so two of them can never both win; the
partial unique constraints on Offer are the backstop the database enforces regardless.

Booking status moves only through ``bookings.services.booking_status_change``:
confirmed -> offered -> accepted; a decline or timeout goes offered -> confirmed while the
next candidate is tried; every tier exhausted is ``no_driver`` (contract 3.1).
"""

from __future__ import annotations

import logging
from datetime import datetime, timedelta

from django.core.mail import mail_admins
from django.db import IntegrityError, transaction
from django.db.models import Exists, F, OuterRef
from django.utils import timezone

from bookings.models import Booking, BookingStatus, DispatchQueue
from bookings.policies import dispatch_window_closes_at
from bookings.services import booking_status_change
from bookings.transitions import ASSIGNABLE, DISPATCHABLE, TERMINAL
from core.errors import DomainError
from core.geo import bounding_box
from core.localtime import local_time_format
from core.task_queue import task_enqueue_on_commit
from dispatch import conf
from dispatch.models import (
    AttemptOutcome,
    DispatchAttempt,
    Offer,
    OfferStatus,
    Tier,
)
from dispatch.services import cancellations, matching
from dispatch.services.matching import Candidate, JobRequirements
from dispatch.signals import fleet_offer_made
from drivers.models import Driver, Vehicle

logger = logging.getLogger(__name__)

DISPATCH_ACTOR = "dispatch"


def _lock_booking(booking_id: int) -> Booking:
    booking = Booking.objects.select_for_update(no_key=True).filter(pk=booking_id).first()
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


def _round_and_searched_tiers(booking: Booking) -> tuple[int, set[int]]:
    """The current round (one more than the rounds exhausted) and the tiers whose trail
    it already holds (a dispatch step after a decline does not write it again)."""
    attempts = DispatchAttempt.objects.filter(
        booking=booking, outcome__in=[AttemptOutcome.EXHAUSTED, AttemptOutcome.SEARCHED]
    ).values_list("outcome", "round", "tier")
    round_ = 1 + sum(outcome == AttemptOutcome.EXHAUSTED for outcome, _, _ in attempts)
    searched = {
        tier for outcome, r, tier in attempts if outcome == AttemptOutcome.SEARCHED and r == round_
    }
    return round_, searched


def _tier_trail(
    booking: Booking,
    round_: int,
    tier: int,
    job: JobRequirements,
    now: datetime,
    offered: Candidate | None,
) -> list[DispatchAttempt]:
    """The trail of a tier's search (unsaved; written with the step's other attempts in one
    INSERT): who was passed over and why, nearest first, then the search itself. With a
    driver ``offered``, only those nearer than that driver were passed over."""
    trail = []
    if tier != Tier.FLEET and not job.located:
        trail.append(
            DispatchAttempt(
                booking=booking,
                round=round_,
                tier=tier,
                outcome=AttemptOutcome.SKIPPED,
                reason=matching.SkipReason.PICKUP_NOT_LOCATED,
                detail="The pickup has no coordinates.",
            )
        )
    within_km = offered.dead_km if offered is not None else None
    skipped = matching.skipped_candidates(tier=tier, job=job, now=now, within_km=within_km)
    trail.extend(
        DispatchAttempt(
            booking=booking,
            round=round_,
            tier=tier,
            outcome=AttemptOutcome.SKIPPED,
            reason=c.reason,
            driver=c.driver,
            vehicle=c.vehicle,
            fleet=c.fleet,
            dead_miles=c.dead_miles,
        )
        for c in skipped
    )
    trail.append(
        DispatchAttempt(
            booking=booking,
            round=round_,
            tier=tier,
            outcome=AttemptOutcome.SEARCHED,
            detail=f"{len(skipped)} skipped",
        )
    )
    return trail


def _driver_still_free(driver_id: int, job: JobRequirements) -> bool:
    """Lock the driver and re-check load in time and pending cards (another booking may
    have won).

    SKIP LOCKED: a driver another dispatch step is deciding about right now counts as taken
    for this step. Waiting instead could deadlock two steps that met their candidates in
    opposite orders.
    """
    state = (
        Driver.objects.select_for_update(no_key=True, skip_locked=True)
        .filter(pk=driver_id)
        .annotate(
            card_pending=Exists(
                Offer.objects.filter(driver_id=OuterRef("pk"), status=OfferStatus.OPEN)
            )
        )
        .values_list("max_jobs", "card_pending")
        .first()
    )
    if state is None:
        return False
    max_jobs, card_pending = state
    load = matching.jobs_overlapping(job).filter(driver_id=driver_id).count()
    return load < max_jobs and not card_pending


def _candidate_free(
    *, tier: int, job: JobRequirements, now: datetime, tried_drivers: set, tried_fleets: set
) -> Candidate | None:
    """The tier's best candidate not tried yet that is still free once locked."""
    while True:
        candidate = matching.candidate_next(
            tier=tier,
            job=job,
            now=now,
            exclude_driver_ids=tried_drivers,
            exclude_fleet_ids=tried_fleets,
        )
        if candidate is None or candidate.driver is None:
            return candidate
        if _driver_still_free(candidate.driver.pk, job):
            return candidate
        tried_drivers.add(candidate.driver.pk)  # taken by another booking meanwhile


def _offer_make(
    booking: Booking,
    candidate: Candidate,
    round_: int,
    now: datetime,
    trail: list[DispatchAttempt],
) -> Offer:
    timeout = (
        conf.fleet_offer_timeout_seconds()
        if candidate.tier == Tier.FLEET
        else conf.offer_timeout_seconds()
    )
    with transaction.atomic():
        # The savepoint turns a lost race on offer_one_open_per_driver into "try the next one".
        offer = Offer.objects.create(
            booking=booking,
            round=round_,
            tier=candidate.tier,
            driver=candidate.driver,
            vehicle=candidate.vehicle,
            fleet=candidate.fleet,
            subcontracted_to=candidate.subcontracted_to,
            dead_miles=candidate.dead_miles,
            created_at=now,
            expires_at=now + timedelta(seconds=timeout),
            actor=DISPATCH_ACTOR,
        )
    booking_status_change(
        booking=booking,
        to_status=BookingStatus.OFFERED,
        actor=DISPATCH_ACTOR,
        detail={"offerId": offer.pk, "tier": candidate.tier},
    )
    offered = DispatchAttempt(
        booking=booking,
        round=round_,
        outcome=AttemptOutcome.OFFERED,
        tier=candidate.tier,
        driver=candidate.driver,
        vehicle=candidate.vehicle,
        fleet=candidate.fleet,
        offer=offer,
        dead_miles=offer.dead_miles,
    )
    DispatchAttempt.objects.bulk_create([*trail, offered])
    _enqueue("offer_expire", offer.pk, countdown=timeout)
    if offer.driver_id is not None:
        _enqueue("job_card_send", offer.pk, "sms")
        _enqueue("job_card_send", offer.pk, "whatsapp")
    else:
        transaction.on_commit(lambda: fleet_offer_made.send(sender=Offer, offer=offer), robust=True)
    return offer


def booking_dispatch_next(
    *,
    booking_id: int,
    now: datetime | None = None,
    new_round: bool = False,
    quiet: bool = False,
) -> Offer | None:
    """Offer the booking to the best candidate not yet tried in this round.

    Guarantees: at most one open offer per booking; tiers are tried in order and, inside
    a tier, candidates by dead mileage then load; each driver or fleet is offered a booking
    at most once per round, and never again to a driver or fleet that declined it (issue
    34; with ``quiet``, nor to one that let it time out); when nobody is left the booking
    is ``no_driver``. A no-op when the booking is not
    waiting for a driver (already offered, accepted, cancelled...) so the task is safe to
    run twice. A ``no_driver`` booking is only picked up again with ``new_round`` (the
    re-dispatch of ``dispatch.services.redispatch``, the desk's), so an exhausted booking
    never loops on its own; with ``quiet`` a new round that finds nobody writes nothing
    (the periodic re-dispatch tries every open booking each pass). A booking whose
    dispatch window has not opened yet (``Booking.dispatch_opens_at``, issue 15) stays
    ``confirmed``, untouched.
    """
    now = now or timezone.now()
    with transaction.atomic():
        booking = _lock_booking(booking_id)
        if booking.status not in DISPATCHABLE:
            return None
        if booking.status == BookingStatus.NO_DRIVER and not new_round:
            return None
        if booking.dispatch_started_at is None and booking.dispatch_opens_at > now:
            return None  # prebooked: its window has not opened (the dispatcher waits for it)
        # Every offer the booking had, in one query: any still open ends the step.
        earlier = list(
            Offer.objects.filter(booking=booking).values_list(
                "status", "round", "driver_id", "fleet_id"
            )
        )
        if any(status == OfferStatus.OPEN for status, _, _, _ in earlier):
            return None
        if booking.dispatch_started_at is None:
            # Dispatched without the dispatcher (in process, the sweep): it must not claim it.
            Booking.objects.filter(pk=booking.pk).update(dispatch_started_at=now)
        round_, searched_tiers = _round_and_searched_tiers(booking)
        # Tried in this round, or declined in any: a driver who said no is never asked
        # again; one who let it time out is not asked again by the automatic re-dispatch
        # (``quiet``) either, only by the desk's.
        said_no = {OfferStatus.DECLINED, *([OfferStatus.EXPIRED] if quiet else [])}
        tried_drivers = {d for s, r, d, _ in earlier if d and (r == round_ or s in said_no)}
        tried_fleets = {f for s, r, _, f in earlier if f and (r == round_ or s in said_no)}
        job = JobRequirements.for_booking(booking)
        trail: list[DispatchAttempt] = []
        for tier in matching.TIERS:
            while True:
                candidate = _candidate_free(
                    tier=tier,
                    job=job,
                    now=now,
                    tried_drivers=tried_drivers,
                    tried_fleets=tried_fleets,
                )
                if candidate is None and quiet:
                    break  # nobody in this tier: a quiet round writes no trail
                tier_trail = (
                    []
                    if tier in searched_tiers
                    else _tier_trail(booking, round_, tier, job, now, offered=candidate)
                )
                if candidate is None:
                    trail.extend(tier_trail)
                    break
                try:
                    return _offer_make(booking, candidate, round_, now, [*trail, *tier_trail])
                except IntegrityError:
                    if candidate.driver is not None:
                        tried_drivers.add(candidate.driver.pk)
                    else:
                        tried_fleets.add(candidate.fleet.pk)
        if not quiet:
            _dispatch_exhausted(booking, round_, trail)
        return None


def _dispatch_exhausted(booking: Booking, round_: int, trail: list[DispatchAttempt]) -> None:
    exhausted = DispatchAttempt(
        booking=booking,
        round=round_,
        outcome=AttemptOutcome.EXHAUSTED,
        detail="Every tier exhausted.",
    )
    DispatchAttempt.objects.bulk_create([*trail, exhausted])
    if booking.status != BookingStatus.NO_DRIVER:
        booking_status_change(
            booking=booking,
            to_status=BookingStatus.NO_DRIVER,
            actor=DISPATCH_ACTOR,
            detail={"round": round_},
        )
    logger.warning(
        "dispatch: no driver for booking %s (round %s); offered again while its window is "
        "open (dispatch.services.redispatch)",
        booking.reference,
        round_,
    )


def no_driver_alert_send(*, booking_id: int) -> None:
    """Tell the admins a booking whose dispatch window closed needs a human (mail_admins)."""
    booking = Booking.objects.filter(pk=booking_id).first()
    if booking is None or booking.status != BookingStatus.NO_DRIVER:
        return
    mail_admins(
        f"No driver for {booking.reference}",
        "\n".join(
            [
                f"No driver took booking {booking.reference} while its dispatch window was "
                "open; it waits on the dispatch board's queue (needs a human).",
                f"Pickup: {booking.pickup} at {local_time_format(booking.pickup_time)}",
                f"Dropoff: {booking.dropoff}",
                f"Passengers: {booking.passengers}, vehicle: {booking.vehicle_type}",
                "Assign a driver from the dispatch board in the admin.",
            ]
        ),
    )


def booking_redispatch(*, booking_id: int, actor: str) -> Offer | None:
    """Start a new round for a ``no_driver`` booking (admin action): everyone may be tried again."""
    with transaction.atomic():
        booking = _lock_booking(booking_id)
        if booking.status != BookingStatus.NO_DRIVER:
            raise DomainError(
                "invalid_transition",
                f"Booking {booking.reference} is {booking.status}, not no_driver.",
            )
        logger.info("dispatch: %s re-dispatches %s", actor, booking.reference)
        return booking_dispatch_next(booking_id=booking_id, new_round=True)


NO_DRIVER_RETRY_BATCH = 20


def no_driver_bookings_retry(*, driver_id: int, now: datetime | None = None) -> list[int]:
    """A driver became available (went online, came back, finished a job): start a new
    round for the ``no_driver`` bookings whose pickup lies within a driver tier's reach of
    that driver; their ids.

    Guarantees: only network bookings whose dispatch window is still open
    (``bookings.policies.dispatch_window_closes_at``; not yet on the desk's queue),
    soonest pickup first, at most ``NO_DRIVER_RETRY_BATCH`` per call; each goes through
    ``booking_dispatch_next`` (its booking lock, every matching rule, never a driver who
    declined it), so the best candidate gets the offer, which is not necessarily this
    driver, and a booking someone else already took is left alone.
    """
    now = now or timezone.now()
    driver = Driver.objects.filter(pk=driver_id).values_list("last_lat", "last_lng").first()
    if driver is None or None in driver:
        return []
    reach_km = max(conf.search_rings_km()[-1], conf.national_pickup_radius_km())
    min_lat, max_lat, min_lng, max_lng = bounding_box(*driver, reach_km)
    waiting = list(
        Booking.objects.filter(
            status=BookingStatus.NO_DRIVER,
            unassigned_at__isnull=True,
            dispatch_queue=DispatchQueue.NETWORK,
            pickup_time__gt=window_open_since(now),
            pickup_lat__range=(min_lat, max_lat),
            pickup_lng__range=(min_lng, max_lng),
        )
        .order_by("pickup_time", "pk")
        .values_list("pk", flat=True)[:NO_DRIVER_RETRY_BATCH]
    )
    for booking_id in waiting:
        logger.info(
            "dispatch: driver %s available; offering booking %s again", driver_id, booking_id
        )
        booking_dispatch_next(booking_id=booking_id, now=now, new_round=True, quiet=True)
    return waiting


def window_open_since(now: datetime) -> datetime:
    """A booking whose pickup time is later than this still has its dispatch window open
    (``bookings.policies.dispatch_window_closes_at``)."""
    return now - (dispatch_window_closes_at(pickup_time=now) - now)


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


def bookings_dispatch_overdue(*, now: datetime | None = None) -> list[int]:
    """Network bookings that never reached dispatch: the dispatcher handed them over but
    the task message was lost (a broker restart without persistence), or no dispatcher ran.
    Starts dispatch for each and returns their ids. A booking counts once its dispatch
    window has been open longer than the grace (its task may still be on its way) and
    for less than a day (older ones are for the desk, not for automatic offers); dispatch
    that ran left a DispatchAttempt. A prebooked journey whose window is still closed is
    not due.
    """
    now = now or timezone.now()
    grace = timedelta(seconds=conf.handover_grace_seconds())
    overdue = list(
        Booking.objects.filter(
            status=BookingStatus.CONFIRMED,
            dispatch_queue=DispatchQueue.NETWORK,
            dispatch_opens_at__lte=now - grace,
            dispatch_opens_at__gte=now - timedelta(days=1),
        )
        .exclude(Exists(DispatchAttempt.objects.filter(booking=OuterRef("pk"))))
        .values_list("pk", flat=True)[:500]
    )
    for booking_id in overdue:
        logger.warning("dispatch: booking %s never reached dispatch; starting it now", booking_id)
        booking_dispatch_next(booking_id=booking_id, now=now)
    return overdue


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
