"""booking.driver_location events: the car's latest position to the booking's sender
(issue 17, contract 5.1 signing).

Opt-in per account (``Account.driver_location_events``): from ``accepted`` until the
passenger is on board, or until ``completed`` with ``driver_location_until_completed``.

Latest position, not a backlog. Drivers report every few seconds to the position store
(``drivers.positions``: Redis, or the driver's row without it); nothing is queued per
report, and the sender reads each driver's latest fix (``positions_latest``, one round
trip per tick).
Every tick (``DRIVER_LOCATION_TICK_SECONDS``, Celery beat) the sender:

1. finds the live bookings whose car reported a position the receiver has not yet
   acknowledged, and whose last event went out at least
   ``DRIVER_LOCATION_EVENT_INTERVAL_SECONDS`` (15 s) ago: one query;
2. claims them (``DriverLocationFeed.sent_at`` set under ``SELECT ... FOR UPDATE SKIP
   LOCKED``, a guarded claim), so two ticks running at once never send one booking twice
   within the interval;
3. sends each account ONE signed message per tick with the positions of all its claimed
   bookings (at most ``DRIVER_LOCATION_BATCH_MAX`` per message), read at send time.

A failed attempt is not retried: the claim still holds the booking for the interval, and
the next tick after it sends where the car is then. A receiver that was down therefore gets
the current position of each live trip, never the points it missed. 410 disables the
account's endpoint, as for status webhooks.
"""

from __future__ import annotations

import datetime as dt
import json
import logging
import time
import uuid
from collections import defaultdict
from dataclasses import dataclass
from datetime import UTC

import requests
from django.conf import settings
from django.db import transaction
from django.db.models import Case, F, Q, Value, When
from django.utils import timezone

from bookings.models import Booking
from bookings.transitions import DRIVER_HOLDS, DRIVER_ON_THE_WAY
from dispatch.locations import booking_position_build, position_is_fresh
from drivers.positions import Fix, PositionsUnavailable, positions_latest
from partners.models import Account, DriverLocationFeed
from partners.services.webhooks import webhook_address_check, webhook_headers, webhook_post

logger = logging.getLogger(__name__)

DRIVER_LOCATION = "booking.driver_location"
# A position event is worth little after a few seconds: a short timeout, no retry.
REQUEST_TIMEOUT = (3, 5)
NEVER = dt.datetime(2000, 1, 1, tzinfo=UTC)


def _interval() -> dt.timedelta:
    return dt.timedelta(seconds=settings.DRIVER_LOCATION_EVENT_INTERVAL_SECONDS)


def live_trips_followed():
    """Bookings whose sender follows the car now: opted in, with a working webhook URL and
    a driver holding the job at a stage the account asked for. Whether the car has a fresh
    position is the position store's to say (:func:`fresh_positions`)."""
    whole_trip_only = DRIVER_HOLDS - DRIVER_ON_THE_WAY  # on board
    return (
        Booking.objects.filter(
            Q(status__in=DRIVER_ON_THE_WAY)
            | Q(status__in=whole_trip_only, account__driver_location_until_completed=True),
            account__driver_location_events=True,
            account__webhook_disabled_at__isnull=True,
            driver__isnull=False,
        )
        .exclude(account__webhook_url="")
        .order_by()
    )


def fresh_positions(driver_ids, *, now: dt.datetime) -> dict[int, Fix]:
    """The latest fix of each driver that reported within DRIVER_LOCATION_MAX_AGE_SECONDS;
    empty (nothing is due) while the position store does not answer."""
    try:
        latest = positions_latest(driver_ids)
    except PositionsUnavailable:
        logger.warning("driver locations: the position store did not answer")
        return {}
    return {pk: fix for pk, fix in latest.items() if position_is_fresh(fix.at, now)}


def driver_locations_claim(*, now: dt.datetime | None = None) -> dict[int, list[int]]:
    """Claim the bookings whose position event is due: {account id: [booking ids]}.

    Due: followed (``live_trips_followed``) with a fresh position (``fresh_positions``),
    the car reported a position newer than the last one the receiver acknowledged, and the
    booking's last event went out at least the interval ago. Guarantees: a claimed booking
    is not claimed again within the interval, even by a tick running concurrently (the
    claim is a guarded update of row-locked rows).
    """
    now = now or timezone.now()
    cutoff = now - _interval()
    followed = list(
        live_trips_followed().values_list(
            "pk",
            "account_id",
            "driver_id",
            "driver_location_feed__sent_at",
            "driver_location_feed__delivered_position_at",
        )
    )
    fixes = fresh_positions({row[2] for row in followed}, now=now)
    rows = [
        (booking_id, account_id, sent_at)
        for booking_id, account_id, driver_id, sent_at, delivered_at in followed
        if driver_id in fixes
        and (
            sent_at is None
            or ((delivered_at is None or delivered_at < fixes[driver_id].at) and sent_at <= cutoff)
        )
    ]
    if not rows:
        return {}
    account_of = {booking_id: account_id for booking_id, account_id, _ in rows}
    with transaction.atomic():
        DriverLocationFeed.objects.bulk_create(
            [
                DriverLocationFeed(booking_id=booking_id, account_id=account_id, sent_at=NEVER)
                for booking_id, account_id, sent_at in rows
                if sent_at is None
            ],
            ignore_conflicts=True,
        )
        claimed = list(
            DriverLocationFeed.objects.select_for_update(skip_locked=True)
            .filter(booking_id__in=account_of, sent_at__lte=cutoff)
            .order_by("booking_id")
            .values_list("booking_id", flat=True)
        )
        DriverLocationFeed.objects.filter(booking_id__in=claimed).update(sent_at=now)
    by_account: dict[int, list[int]] = defaultdict(list)
    for booking_id in claimed:
        by_account[account_of[booking_id]].append(booking_id)
    return dict(by_account)


def driver_location_batches(claimed: dict[int, list[int]]) -> list[tuple[int, list[int]]]:
    """The claimed bookings cut into messages: (account id, booking ids), at most
    DRIVER_LOCATION_BATCH_MAX bookings each."""
    size = settings.DRIVER_LOCATION_BATCH_MAX
    return [
        (account_id, ids[i : i + size])
        for account_id, ids in sorted(claimed.items())
        for i in range(0, len(ids), size)
    ]


def driver_location_payload_build(
    *, bookings: list[Booking], fixes: dict[int, Fix], now: dt.datetime
) -> dict:
    """The message body: one entry per booking, each the tracking page's live position
    (``dispatch.locations.booking_position_build``, from its driver's fix in ``fixes``) plus
    the booking's references, status and event sequence (the sequence of its latest status
    webhook)."""
    locations = []
    for booking in bookings:
        locations.append(
            {
                "bookingReference": booking.reference,
                "jobRef": booking.job_ref or None,
                "status": booking.status,
                "sequence": booking.sequence,
                **booking_position_build(booking, fixes[booking.driver_id], now=now),
            }
        )
    return {
        "type": DRIVER_LOCATION,
        "timestamp": now.astimezone(UTC).isoformat().replace("+00:00", "Z"),
        "data": {"locations": locations},
    }


@dataclass(frozen=True)
class LocationSendOutcome:
    sent: int  # bookings in the message
    delivered: bool
    status_code: int | None = None
    error: str = ""


def driver_locations_deliver(
    *, account_id: int, booking_ids: list[int], now: dt.datetime | None = None
) -> LocationSendOutcome:
    """Send one account the latest positions of the claimed bookings, in one signed
    message, outside any transaction.

    Positions are read now, not at claim time; a booking that stopped being followed
    since (on board, completed, opted out) is left out. 2xx records each position as
    acknowledged; any failure is recorded and NOT retried: the next claim, one interval
    later, carries the position of that moment. 410 disables the endpoint.
    """
    now = now or timezone.now()
    account = Account.objects.filter(pk=account_id).first()
    if account is None:
        return LocationSendOutcome(sent=0, delivered=False, error="Account gone.")
    followed = list(
        live_trips_followed().filter(pk__in=booking_ids, account_id=account_id).order_by("pk")
    )
    fixes = fresh_positions({b.driver_id for b in followed}, now=now)
    bookings = [b for b in followed if b.driver_id in fixes]
    if not bookings:
        return LocationSendOutcome(sent=0, delivered=False, error="Nothing followed any more.")
    body = json.dumps(
        driver_location_payload_build(bookings=bookings, fixes=fixes, now=now),
        separators=(",", ":"),
    )
    feeds = DriverLocationFeed.objects.filter(booking_id__in=[b.pk for b in bookings])
    # The interval runs from the message's own timestamp, not from the claim: however long
    # the message waited for a worker, the next one is at least the interval after it.
    feeds.update(sent_at=now)
    url = account.webhook_url
    status_code, error = None, ""
    refusal, address = webhook_address_check(url)
    if refusal:
        error = f"Refused: {refusal}"
    else:
        webhook_id = f"msg_{uuid.uuid4().hex}"
        headers = webhook_headers(
            account=account, webhook_id=webhook_id, timestamp=int(time.time()), body=body
        )
        try:
            response = webhook_post(
                url,
                address=address,
                data=body.encode(),
                headers=headers,
                timeout=REQUEST_TIMEOUT,
                allow_redirects=False,
            )
            status_code = response.status_code
        except requests.RequestException as exc:
            error = f"{type(exc).__name__}: {exc}"[:500]
    delivered = status_code is not None and 200 <= status_code < 300
    if delivered:
        acknowledged = Case(
            *[When(booking_id=b.pk, then=Value(fixes[b.driver_id].at)) for b in bookings]
        )
        feeds.update(
            delivered_position_at=acknowledged,
            events_sent=F("events_sent") + 1,
            last_status_code=status_code,
            last_error="",
        )
        return LocationSendOutcome(sent=len(bookings), delivered=True, status_code=status_code)
    error = error or f"HTTP {status_code}"
    feeds.update(failures=F("failures") + 1, last_status_code=status_code, last_error=error[:500])
    if status_code == 410:
        # Standard Webhooks: 410 Gone means the receiver wants no more (as in 5.1).
        Account.objects.filter(pk=account.pk, webhook_disabled_at__isnull=True).update(
            webhook_disabled_at=now
        )
    logger.info("driver locations to account %s failed: %s", account_id, error)
    return LocationSendOutcome(
        sent=len(bookings), delivered=False, status_code=status_code, error=error
    )
