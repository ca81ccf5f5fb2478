"""Dispatch rounds: tier after tier, the next free candidate gets an offer; every tier
exhausted is ``no_driver`` and the desk is told; a ``no_driver`` booking is offered again
when a driver near it frees up; bookings that never reached dispatch are started."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.core.mail import mail_admins
from django.db import connection, transaction
from django.db.models import Exists, OuterRef
from django.utils import timezone

from bookings.models import Booking, BookingStatus, DispatchQueue
from bookings.policies import dispatch_window_closes_at
from bookings.services import booking_status_change
from bookings.transitions import DISPATCHABLE
from core.errors import DomainError
from core.fast_paths import row_insert
from core.geo import bounding_box
from core.localtime import local_time_format
from dispatch import conf
from dispatch.models import (
    AttemptOutcome,
    DispatchAttempt,
    Offer,
    OfferStatus,
    SkipReason,
    Tier,
)
from dispatch.services import matching
from dispatch.services.matching import Candidate, JobRequirements, NearSearch
from dispatch.services.offers.trail import DISPATCH_ACTOR, _enqueue, _lock_booking
from dispatch.signals import fleet_offer_made
from drivers.models import Driver

# The name the package had as one module: log readers and the log config select it.
logger = logging.getLogger("dispatch.services.offers")


# What a step needs of the booking's history, in one statement (issue 41: two ORM queries
# cost more to build than to run): every offer it had (status, round, driver, fleet),
# then the trail rows that say which rounds were exhausted and which tiers searched
# (outcome, round, tier). Table and column names and the outcomes are code constants.
_HISTORY_SQL = f"""
SELECT 'offer', status, round, driver_id, fleet_id
FROM {Offer._meta.db_table} WHERE booking_id = %(booking_id)s
UNION ALL
SELECT outcome, NULL, round, tier, NULL
FROM {DispatchAttempt._meta.db_table}
WHERE booking_id = %(booking_id)s
    AND outcome IN ('{AttemptOutcome.EXHAUSTED}', '{AttemptOutcome.SEARCHED}')
"""  # noqa: S608 (table names and constants; the booking is a parameter)


@dataclass(frozen=True)
class _History:
    """The booking's earlier offers as (status, round, driver id, fleet id), the current
    round (one more than the rounds exhausted) and the tiers whose trail that round
    already holds (a dispatch step after a decline does not write it again)."""

    offers: list[tuple[str, int, int | None, int | None]]
    round: int
    searched_tiers: set[int]


def _history(booking_id: int) -> _History:
    with connection.cursor() as cursor:
        cursor.execute(_HISTORY_SQL, {"booking_id": booking_id})
        rows = cursor.fetchall()
    offers = [
        (status, r, driver, fleet) for kind, status, r, driver, fleet in rows if kind == "offer"
    ]
    attempts = [(kind, r, tier) for kind, _, r, tier, _ in rows if kind != "offer"]
    round_ = 1 + sum(outcome == AttemptOutcome.EXHAUSTED for outcome, _, _ in attempts)
    searched = {
        tier for outcome, r, tier in attempts if outcome == AttemptOutcome.SEARCHED and r == round_
    }
    return _History(offers=offers, round=round_, searched_tiers=searched)


def _tier_trail(
    booking: Booking,
    round_: int,
    tier: int,
    job: JobRequirements,
    now: datetime,
    offered: Candidate | None,
    search: NearSearch,
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
                reason=SkipReason.PICKUP_NOT_LOCATED,
                detail="The pickup has no coordinates.",
            )
        )
    within_km = offered.dead_km if offered is not None else None
    skipped = matching.skipped_candidates(
        tier=tier, job=job, now=now, within_km=within_km, search=search
    )
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
    # One hand-written statement: the lock, the pending card and the load in time (through
    # the ORM, building it cost more than a dispatch step's candidate search).
    return matching.driver_lock_if_free(driver_id, job)


def _candidate_free(
    *,
    tier: int,
    job: JobRequirements,
    now: datetime,
    tried_drivers: set,
    tried_fleets: set,
    search: NearSearch,
) -> Candidate | None:
    """The tier's best candidate not tried yet that is still free once locked."""
    while True:
        candidate = matching.candidate_next(
            tier=tier,
            job=job,
            now=now,
            exclude_driver_ids=tried_drivers,
            exclude_fleet_ids=tried_fleets,
            search=search,
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
) -> Offer | None:
    """Offer the job to ``candidate`` with the step's ``trail``; None when another step
    offered that driver or fleet a job meanwhile (nothing written)."""
    timeout = (
        conf.fleet_offer_timeout_seconds()
        if candidate.tier == Tier.FLEET
        else conf.offer_timeout_seconds()
    )
    # Who gets it, as the offer and its trail row both name them.
    offered_to = {
        "booking": booking,
        "round": round_,
        "tier": candidate.tier,
        "driver": candidate.driver,
        "vehicle": candidate.vehicle,
        "fleet": candidate.fleet,
        "dead_miles": candidate.dead_miles,
    }
    offer = Offer(
        **offered_to,
        subcontracted_to=candidate.subcontracted_to,
        created_at=now,
        expires_at=now + timedelta(seconds=timeout),
        actor=DISPATCH_ACTOR,
    )
    # One statement; a lost race on offer_one_open_per_driver writes nothing (issue 41).
    if not row_insert(Offer).insert_unless_conflict(offer):
        return None
    booking_status_change(
        booking=booking,
        to_status=BookingStatus.OFFERED,
        actor=DISPATCH_ACTOR,
        detail={"offerId": offer.pk, "tier": candidate.tier},
    )
    offered = DispatchAttempt(**offered_to, outcome=AttemptOutcome.OFFERED, offer=offer)
    row_insert(DispatchAttempt).rows_write([*trail, offered])
    _enqueue("offer_expire", offer.pk, countdown=timeout)
    if offer.driver_id is not None:
        _enqueue("job_cards_send", offer.pk)
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
        # Every offer the booking had and its trail's rounds, in one query: any offer
        # still open ends the step.
        history = _history(booking.pk)
        earlier = history.offers
        if any(status == OfferStatus.OPEN for status, _, _, _ in earlier):
            return None
        if booking.dispatch_started_at is None:
            # Dispatched without the dispatcher (in process, the sweep): it must not claim it.
            Booking.objects.filter(pk=booking.pk).update(dispatch_started_at=now)
        round_, searched_tiers = history.round, history.searched_tiers
        # Tried in this round, or declined in any: a driver who said no is never asked
        # again; one who let it time out is not asked again by the automatic re-dispatch
        # (``quiet``) either, only by the desk's.
        said_no = {OfferStatus.DECLINED, *([OfferStatus.EXPIRED] if quiet else [])}
        tried_drivers = {d for s, r, d, _ in earlier if d and (r == round_ or s in said_no)}
        tried_fleets = {f for s, r, _, f in earlier if f and (r == round_ or s in said_no)}
        job = JobRequirements.for_booking(booking)
        # One view of the position index for every tier and the trail of this step.
        search = NearSearch(job=job, now=now)
        trail: list[DispatchAttempt] = []
        for tier in matching.TIERS:
            while True:
                candidate = _candidate_free(
                    tier=tier,
                    job=job,
                    now=now,
                    tried_drivers=tried_drivers,
                    tried_fleets=tried_fleets,
                    search=search,
                )
                if candidate is None and quiet:
                    break  # nobody in this tier: a quiet round writes no trail
                tier_trail = (
                    []
                    if tier in searched_tiers
                    else _tier_trail(
                        booking, round_, tier, job, now, offered=candidate, search=search
                    )
                )
                if candidate is None:
                    trail.extend(tier_trail)
                    break
                offer = _offer_make(booking, candidate, round_, now, [*trail, *tier_trail])
                if offer is not None:
                    return offer
                # Offered a job by another step meanwhile: try the next one.
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
    row_insert(DispatchAttempt).rows_write([*trail, exhausted])
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
