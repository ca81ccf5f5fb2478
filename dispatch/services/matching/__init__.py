"""The matcher of seed 1.3: which driver or fleet gets the next offer, tier by tier.

Tier 1: approved local drivers whose operating radius around their base covers the pickup.
Tier 2: national network drivers with a corridor from the pickup to the dropoff.
Tier 3: approved partner fleets (offered through the fleet account's webhook).

Filters in tiers 1 and 2: online and seen recently, job load below maximum, no other job
card pending, seats >= passengers, vehicle class, wheelchair access for wav, driver
licence and vehicle plate valid on the pickup date, and UK licensing: driver, vehicle and
the operator that accepts the job are licensed by the same authority. Inside a tier the
order is dead mileage (driver position to pickup), then current job load.

Candidates come from the live-position index (``drivers.positions.drivers_near``: Redis
GEO sets by area and vehicle class, or the driver rows' indexed position columns without
Redis): the nearest drivers seen recently with a vehicle of a class that may serve the
job, searched in growing rings so that a busy city costs the same as an empty county.
Then the filters run in SQL for those drivers only. They are written twice, side by
side in this package: as one hand-written SQL statement over the drivers the index gave
(``sql._CANDIDATES_SQL``, the hot path of every dispatch step), and as the conditions under
which a candidate fails, which give skipped candidates the first reason that failed for the
trail: in SQL for the trail (``sql._SKIP_REASON_ROWS_SQL``, also in every dispatch step)
and through the ORM (``rules._driver_rules``) for an assignment by hand. The tests check
every filter through the matcher and the trail, and bench/bench_dispatch.py checks that the
ORM rules and the matcher choose the same drivers over 100,000.
"""

from dispatch.services.matching.assignment import (
    ASSIGNMENT_REFUSAL_WORDS,
    ASSIGNMENT_RULES,
    assignment_refusal,
)
from dispatch.services.matching.candidates import (
    INDEX_MARGIN,
    NEAR_FIRST,
    NEAR_GROWTH,
    TRAIL_NEAR_MAX,
    NearSearch,
    candidate_next,
    driver_candidates,
    driver_skipped,
    fleet_candidates,
    skipped_candidates,
)
from dispatch.services.matching.requirements import (
    DRIVER_TIERS,
    TIERS,
    Candidate,
    JobRequirements,
    job_busy_window,
    jobs_overlapping,
)
from dispatch.services.matching.sql import driver_lock_if_free

__all__ = [
    "ASSIGNMENT_REFUSAL_WORDS",
    "ASSIGNMENT_RULES",
    "DRIVER_TIERS",
    "INDEX_MARGIN",
    "NEAR_FIRST",
    "NEAR_GROWTH",
    "TIERS",
    "TRAIL_NEAR_MAX",
    "Candidate",
    "JobRequirements",
    "NearSearch",
    "assignment_refusal",
    "candidate_next",
    "driver_candidates",
    "driver_lock_if_free",
    "driver_skipped",
    "fleet_candidates",
    "job_busy_window",
    "jobs_overlapping",
    "skipped_candidates",
]
