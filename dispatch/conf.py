"""Dispatch settings, read at call time so tests can override them.

Their defaults live in ``config/settings/domains/dispatch.py`` (and the README documents them).
"""

from __future__ import annotations

from django.conf import settings


def offer_timeout_seconds() -> int:
    """How long a driver has to answer a job card before the next candidate is tried."""
    return int(settings.DISPATCH_OFFER_TIMEOUT_SECONDS)


def fleet_offer_timeout_seconds() -> int:
    """Partner fleets answer through a webhook round trip, so they get longer (seed 1.3)."""
    return int(settings.DISPATCH_FLEET_OFFER_TIMEOUT_SECONDS)


def driver_seen_within_seconds() -> int:
    """A driver whose app has not reported a position for this long is not in the live pool."""
    return int(settings.DISPATCH_DRIVER_SEEN_WITHIN_SECONDS)


def search_rings_km() -> tuple[float, ...]:
    """Growing search radii around the pickup; the last one is the furthest dead mileage."""
    rings = settings.DISPATCH_SEARCH_RINGS_KM
    return tuple(float(r) for r in rings)


def national_pickup_radius_km() -> float:
    """How far from the pickup a national network driver may be and still get the job."""
    return float(settings.DISPATCH_NATIONAL_PICKUP_RADIUS_KM)


def trail_skipped_limit() -> int:
    """Skipped candidates recorded per tier and round, nearest first (keeps the trail small)."""
    return int(settings.DISPATCH_TRAIL_SKIPPED_LIMIT)


def offer_link_max_age_seconds() -> int:
    """Lifetime of the signed accept/decline link in a job card."""
    return int(settings.DISPATCH_OFFER_LINK_MAX_AGE_SECONDS)


def job_card_grace_seconds() -> int:
    """How old an open offer whose job card was never written must be before the sweep
    sends it (its task message was lost with a worker or the broker)."""
    return int(settings.DISPATCH_JOB_CARD_GRACE_SECONDS)


def handover_grace_seconds() -> int:
    """How old a booking that never reached dispatch must be before the sweep starts it."""
    return int(settings.DISPATCH_HANDOVER_GRACE_SECONDS)


def driver_cancelled_shown_hours() -> int:
    """How long the driver app lists a job cancelled under the driver (issue 34)."""
    return int(settings.DISPATCH_DRIVER_CANCELLED_SHOWN_HOURS)


def redispatch_batch() -> int:
    """At most this many bookings without a driver are offered again per pass (issue 34)."""
    return int(settings.DISPATCH_REDISPATCH_BATCH)


def travel_to_next_pickup_minutes() -> int:
    """Allowed after a job's estimated end to reach the next pickup (capacity in time)."""
    return int(settings.DISPATCH_TRAVEL_TO_NEXT_PICKUP_MINUTES)


def unknown_duration_minutes() -> int:
    """A job's length when its journey was not priced with one (capacity in time)."""
    return int(settings.DISPATCH_UNKNOWN_DURATION_MINUTES)


def redispatch_budget_seconds() -> float:
    """A re-dispatch pass stops searching after this long (issue 34)."""
    return float(settings.DISPATCH_REDISPATCH_BUDGET_SECONDS)
