"""Re-dispatch (contract 3.1, issue 34): a booking without a driver is offered again while
its dispatch window is open, and handed to a human when it closes.

When: a driver declines or times out (``offers.trail._offer_close`` tries the next candidate at
once), a driver comes online or frees up (``offers.no_driver_bookings_retry``), and on a
schedule: every ``DISPATCH_REDISPATCH_EVERY_SECONDS`` (30 s) the beat entry
``dispatch-redispatch`` (or, with no beat, the embedded dispatcher, ``dispatch.periodic``)
runs :func:`bookings_redispatch`. Each ``no_driver`` booking whose window is open starts
a new round through the tiers again (local, national, fleets) as ``booking_dispatch_next``
runs them, never to a driver or fleet that declined it; a round that finds nobody writes
nothing. At most ``DISPATCH_REDISPATCH_BATCH`` (1,000) bookings a pass, soonest pickup
first, searching for at most ``DISPATCH_REDISPATCH_BUDGET_SECONDS`` (10 s) a pass, so
that passes never pile up (the rest wait for the next); a booking with no free driver
within reach (one query for the whole pass,
``_reachable_filter``) is not searched at all.

The window closes ``DISPATCH_GIVE_UP_AFTER_PICKUP_MINUTES`` (20) after the pickup time
(``bookings.policies.dispatch_window_closes_at``). Then, at once: ``booking.unassigned``
goes to the sender's webhook with the reasons dispatch recorded
(``unassigned_reasons``), the passenger is emailed, the desk is alerted, and the booking
waits on the dispatch board's "needs a human" queue (``Booking.unassigned_at``) until the
desk assigns or re-dispatches it, or someone cancels it.
"""

from __future__ import annotations

import logging
import math
import time
from dataclasses import dataclass
from datetime import datetime

from django.core.mail import send_mail
from django.db.models import Count, Exists, F, OuterRef, Q, Subquery
from django.db.models.functions import Coalesce
from django.utils import timezone

from bookings.models import Booking, BookingStatus, DispatchQueue
from bookings.services import booking_cancel_url, booking_unassigned_record
from core.geo import bounding_box
from core.localtime import local_time_format
from core.task_queue import task_enqueue_on_commit
from dispatch import conf
from dispatch.models import AttemptOutcome, DispatchAttempt, Offer, OfferStatus, PartnerFleet
from dispatch.services import offers
from drivers.models import Driver

logger = logging.getLogger(__name__)

UNASSIGNED_ACTOR = "dispatch:window-closed"


@dataclass(frozen=True)
class RedispatchPass:
    offered: int  # bookings offered to a driver or fleet again
    waiting: int  # bookings tried again that found nobody (still open)
    unassigned: int  # bookings whose window closed: handed to a human


def bookings_redispatch(*, now: datetime | None = None) -> RedispatchPass:
    """One pass of the schedule: hand over the bookings whose window closed, then offer
    the open ones again. Safe to run twice or concurrently: every step holds the
    booking's lock and re-checks its status."""
    now = now or timezone.now()
    since = offers.window_open_since(now)
    base = Booking.objects.filter(status=BookingStatus.NO_DRIVER, unassigned_at__isnull=True)
    closed = list(base.filter(pickup_time__lte=since).values_list("pk", flat=True)[:500])
    for booking_id in closed:
        booking_unassign(booking_id=booking_id, now=now)
    open_rows = list(
        base.filter(pickup_time__gt=since, dispatch_queue=DispatchQueue.NETWORK)
        .order_by("pickup_time", "pk")
        .values_list("pk", "pickup_lat", "pickup_lng")[: conf.redispatch_batch()]
    )
    reachable = _reachable_filter()
    open_ids = [pk for pk, lat, lng in open_rows if reachable(lat, lng)]
    offered = 0
    deadline = time.monotonic() + conf.redispatch_budget_seconds()
    for booking_id in open_ids:
        if time.monotonic() > deadline:
            logger.warning("dispatch: re-dispatch pass out of time; the rest wait for the next")
            break
        offer = offers.booking_dispatch_next(
            booking_id=booking_id, now=now, new_round=True, quiet=True
        )
        offered += offer is not None
    if offered:
        logger.info("dispatch: re-dispatch offered %s of %s bookings", offered, len(open_ids))
    return RedispatchPass(offered=offered, waiting=len(open_rows) - offered, unassigned=len(closed))


# The grid the pass buckets free drivers in (degrees): a booking is tried only when some
# cell within a driver tier's reach of its pickup holds a free driver.
_CELL_DEGREES = 0.25


def _reachable_filter():
    """A cheap test run before the matcher, so that a pass over a city short of drivers
    costs one query rather than a full search per booking: with an active partner fleet
    every booking is worth a try (tier 3 has no position); otherwise only a booking with
    a driver online, holding no open offer and fewer jobs busy right now than their limit
    (a later job may still leave them free for it) within the driver tiers' reach (the
    furthest search ring, the national pickup radius) of its pickup. Permissive on
    purpose: the matcher then applies every rule, capacity in time included."""
    if PartnerFleet.objects.filter(active=True).exists():
        return lambda lat, lng: True
    now = timezone.now()
    busy_now = Subquery(
        Offer.objects.filter(
            driver_id=OuterRef("pk"), status=OfferStatus.ACCEPTED, released_at__isnull=True
        )
        .filter(Q(busy_from__isnull=True) | Q(busy_from__lte=now, busy_until__gt=now))
        .values("driver_id")
        .annotate(n=Count("pk"))
        .values("n")[:1]
    )
    free = (
        Driver.objects.filter(online=True, last_lat__isnull=False, last_lng__isnull=False)
        .exclude(Exists(Offer.objects.filter(driver=OuterRef("pk"), status=OfferStatus.OPEN)))
        .annotate(busy_now=Coalesce(busy_now, 0))
        .filter(busy_now__lt=F("max_jobs"))
        .values_list("last_lat", "last_lng")
    )
    cells = {(_cell(lat), _cell(lng)) for lat, lng in free}
    if not cells:
        return lambda lat, lng: False
    reach_km = max(conf.search_rings_km()[-1], conf.national_pickup_radius_km())

    def reachable(lat, lng) -> bool:
        if lat is None or lng is None:
            return True  # the matcher records why it cannot place it
        min_lat, max_lat, min_lng, max_lng = bounding_box(lat, lng, reach_km)
        return any(
            (i, j) in cells
            for i in range(_cell(min_lat), _cell(max_lat) + 1)
            for j in range(_cell(min_lng), _cell(max_lng) + 1)
        )

    return reachable


def _cell(degrees: float) -> int:
    return math.floor(degrees / _CELL_DEGREES)


def unassigned_reasons(booking: Booking) -> list[dict]:
    """What dispatch recorded against the booking, most frequent first: each reason a
    candidate was passed over (``SkipReason``), and the offers declined or timed out."""
    rows = (
        DispatchAttempt.objects.filter(
            booking=booking,
            outcome__in=[
                AttemptOutcome.SKIPPED,
                AttemptOutcome.DECLINED,
                AttemptOutcome.EXPIRED,
            ],
        )
        .values("outcome", "reason")
        .annotate(count=Count("pk"))
    )
    reasons = [
        {
            "reason": row["reason"] if row["outcome"] == AttemptOutcome.SKIPPED else row["outcome"],
            "count": row["count"],
        }
        for row in rows
    ]
    if not reasons:
        reasons = [{"reason": "no_candidates", "count": 0}]
    return sorted(reasons, key=lambda r: (-r["count"], r["reason"]))


def booking_unassign(*, booking_id: int, now: datetime | None = None) -> bool:
    """The booking's window closed with no driver: record ``booking.unassigned`` with the
    reasons (the sender's webhook carries them), put it on the desk's queue, and tell the
    passenger and the desk after commit. True when it did (once per booking)."""
    now = now or timezone.now()
    booking = Booking.objects.filter(pk=booking_id).first()
    if booking is None:
        return False
    detail = {
        "reasons": unassigned_reasons(booking),
        "rounds": DispatchAttempt.objects.filter(
            booking=booking, outcome=AttemptOutcome.EXHAUSTED
        ).count(),
        "windowClosedAt": now.isoformat(),
    }
    if not booking_unassigned_record(
        booking=booking, actor=UNASSIGNED_ACTOR, detail=detail, now=now
    ):
        return False
    logger.error(
        "dispatch: no driver for booking %s before its window closed; it needs a human",
        booking.reference,
    )
    task_enqueue_on_commit("dispatch.tasks.no_driver_alert", booking.pk, robust=True)
    task_enqueue_on_commit("dispatch.tasks.unassigned_passenger_notify", booking.pk, robust=True)
    return True


def unassigned_passenger_notify(*, booking_id: int) -> None:
    """Email the passenger that no driver was found in time (once the window closed)."""
    booking = Booking.objects.filter(pk=booking_id).first()
    if booking is None or not booking.passenger_email or booking.unassigned_at is None:
        return
    send_mail(
        f"No driver found yet for {booking.reference}",
        "\n".join(
            [
                f"We are sorry: no driver took your booking {booking.reference} "
                f"({booking.pickup} at {local_time_format(booking.pickup_time)} UK time).",
                "Our dispatch desk now has it and may still find you a driver by hand; "
                "you will get a message if one is assigned.",
                f"If you have made other plans, cancel it here (free): "
                f"{booking_cancel_url(booking)}",
            ]
        ),
        None,
        [booking.passenger_email],
        fail_silently=True,
    )
