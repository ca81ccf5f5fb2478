"""Whether a driver's reports could have been made by a car (issue 35): the speed implied
between consecutive fixes is at most ``POSITIONS_MAX_PLAUSIBLE_SPEED_KMH``.

Positions are evidence: the arrival and no-show rules judge the driver's own latest
report, and the trail is kept for disputes. A report 272 km from the one a second before
was taken, and would have put the driver at a pickup they were nowhere near. A fix that
no car could have reached is refused with the whole report (422 ``position_implausible``),
so it is neither stored nor judged; the phone's next honest report is taken.
"""

from __future__ import annotations

from collections.abc import Sequence

from django.conf import settings

from core.errors import DomainError
from core.geo import haversine_km
from drivers.positions import Fix

# Two fixes of one phone may each be off by this much (GPS among tall buildings is
# off by tens of metres, at worst about a hundred), so fixes this close are never a jump,
# whatever their times: a parked car's fixes wander, a second apart.
FIX_ERROR_ALLOWANCE_KM = 0.2


def fixes_plausible_check(*, previous: Fix | None, fixes: Sequence[Fix]) -> None:
    """DomainError ``position_implausible`` when any two consecutive fixes in time (the
    driver's latest report held, then the report's own) are further apart than a car
    could have driven between them. No read or write of its own: ``previous`` is the
    caller's."""
    limit_kmh = float(settings.POSITIONS_MAX_PLAUSIBLE_SPEED_KMH)
    if limit_kmh <= 0:  # off: tests that move a car by hand between two reports
        return
    ordered = sorted([*fixes, *([previous] if previous else [])], key=lambda fix: fix.at)
    for earlier, later in zip(ordered, ordered[1:], strict=False):
        km = haversine_km(earlier.lat, earlier.lng, later.lat, later.lng)
        hours = (later.at - earlier.at).total_seconds() / 3600
        if km <= FIX_ERROR_ALLOWANCE_KM + limit_kmh * hours:
            continue
        seconds = round(hours * 3600, 1)
        raise DomainError(
            "position_implausible",
            f"A fix is {km:.1f} km from the one {seconds:g} s before it, faster than the "
            f"{limit_kmh:g} km/h a car can plausibly drive. Nothing was recorded; send the "
            "next fix when the phone has a good position.",
            extra={"maxSpeedKmh": limit_kmh},
        )
