"""The candidates of each tier, best first (drivers through the SQL form, fleets by
their rules and distance), the ones passed over for the trail, and the next one."""

from __future__ import annotations

import math
from collections.abc import Iterable
from datetime import datetime, timedelta

from django.db import connection

from core.geo import (
    haversine_km,
)
from dispatch import conf
from dispatch.models import PartnerFleet, SkipReason, Tier
from dispatch.services.matching.requirements import DRIVER_TIERS, Candidate, JobRequirements
from dispatch.services.matching.rules import _rings
from dispatch.services.matching.sql import (
    _candidate_statement,
    _row_candidate,
    _skipped_candidate,
    _skipped_statement,
)
from drivers.positions import NearDriver, drivers_near
from pricing.vehicles import VEHICLE_CLASSES_SERVING

# Drivers asked of the index per ring at first; a ring whose nearest drivers all fail a
# filter is asked again for this many times more, until it has no more to give.
NEAR_FIRST, NEAR_GROWTH = 16, 4
# At most this many drivers near the pickup are looked at for the trail's skip reasons.
TRAIL_NEAR_MAX = 500
# A widened search (NearSearch) asks the index for at most this many drivers: in a town
# with a few hundred, every driver within reach, so that every ring is answered from it.
WIDE_MAX = TRAIL_NEAR_MAX * NEAR_GROWTH
# A search widens once this many rings of a tier found nobody: a step that finds a free
# driver in its second ring (most offers in a busy town) does not pay for widening.
WIDEN_AFTER_RINGS = 2
# The index's distances (Redis: its own Earth radius) and haversine_km differ by < 0.1 %.
INDEX_MARGIN = 1.01


class NearSearch:
    """One dispatch step's view of the position index around the pickup, shared by its
    tiers and its trail (issue 41).

    At first every ask goes to the index, as small as the ring search needs: a step that
    finds a free driver in its first rings asks nothing more. Once ``WIDEN_AFTER_RINGS``
    rings of a tier have found nobody, the step is likely to search every ring of every tier and
    then write the trail (when every driver near holds an offer: 17 asks and a dozen
    statements a step). So the search then widens (:meth:`widen`): one ask for the
    ``WIDE_MAX`` nearest drivers within every driver tier's reach (any class, any age of
    fix), from which every later ask is answered when that answer is complete, and one
    statement for which of them fail a rule that no tier can lift (an offer open, their
    job limit, offline, no fit vehicle...): they are never sent to a tier's filter.
    """

    def __init__(self, *, job: JobRequirements, now: datetime) -> None:
        self.job = job
        self.seen_after = now - timedelta(seconds=conf.driver_seen_within_seconds())
        self.reach_km = max(_rings(tier)[-1] for tier in DRIVER_TIERS) * INDEX_MARGIN
        # Nearest first; None until widened.
        self.nearest: list[NearDriver] | None = None
        # Drivers of ``nearest`` with a recent fix who fail a rule of every driver tier.
        self.unfit: set[int] = set()

    def fresh(self, found: NearDriver) -> bool:
        return found.seen_at is not None and found.seen_at >= self.seen_after

    def near(
        self, *, radius_km: float, count: int, fresh_only: bool, classes: Iterable[str] | None
    ) -> list[NearDriver]:
        """The ``count`` nearest drivers within ``radius_km`` (seen recently when
        ``fresh_only``), nearest first: ``drivers_near``'s answer. From the widened
        answer, drivers of any class (the filters check the class): when it holds
        ``count`` such drivers or every driver within the radius."""
        if self.nearest is not None and radius_km <= self.reach_km:
            found = [
                f
                for f in self.nearest
                if f.distance_km <= radius_km and (not fresh_only or self.fresh(f))
            ]
            # Cut at WIDE_MAX: anyone left out is further than its last driver.
            whole = len(self.nearest) < WIDE_MAX or self.nearest[-1].distance_km > radius_km
            if len(found) >= count or whole:
                return found[:count]
        return drivers_near(
            lat=self.job.pickup_lat,
            lng=self.job.pickup_lng,
            radius_km=radius_km,
            vehicle_classes=classes,
            seen_after=self.seen_after if fresh_only else None,
            count=count,
        )

    def widen(self) -> None:
        """Ask the index once for the nearest drivers within reach, and learn which of
        them no driver tier may offer the job (the tierless form of the filter)."""
        if self.nearest is not None:
            return
        self.nearest = drivers_near(
            lat=self.job.pickup_lat,
            lng=self.job.pickup_lng,
            radius_km=self.reach_km,
            vehicle_classes=None,
            seen_after=None,
            count=WIDE_MAX,
        )
        fresh = [f for f in self.nearest if self.fresh(f)]
        if not fresh:
            return
        sql, params = _candidate_statement(tier=None, job=self.job, near=fresh, limit=len(fresh))
        with connection.cursor() as cursor:
            cursor.execute(sql, params)
            fit = {row[0] for row in cursor.fetchall()}
        self.unfit = {f.driver_id for f in fresh if f.driver_id not in fit}


def driver_candidates(
    *,
    tier: int,
    job: JobRequirements,
    now: datetime,
    exclude_driver_ids: Iterable[int] = (),
    limit: int = 1,
    search: NearSearch | None = None,
) -> list[Candidate]:
    """Eligible drivers of a driver tier, nearest first (then least loaded).

    Searched ring by ring: a driver found inside a ring is nearer than anyone outside it,
    so the first ring with ``limit`` drivers (or the last ring) gives the answer. In each
    ring the index gives the nearest drivers seen recently, and the filters run on them.
    A driver the filters turned down is not sent to them again in a wider ring: none of
    them depends on the ring, so each driver costs one look per search, not one per ring
    (when everyone near is taken, the search runs through every ring of the tier).
    """
    if not job.located:
        return []
    if tier == Tier.NATIONAL and (job.dropoff_lat is None or job.dropoff_lng is None):
        return []
    search = search or NearSearch(job=job, now=now)
    excluded = set(exclude_driver_ids) | search.unfit
    classes = VEHICLE_CLASSES_SERVING.get(job.vehicle_type, frozenset({job.vehicle_type}))
    rows: list[tuple] = []
    with connection.cursor() as cursor:
        for number, ring in enumerate(_rings(tier, searching=True), start=1):
            count = max(NEAR_FIRST, limit + len(excluded))
            while True:
                near = search.near(radius_km=ring, count=count, fresh_only=True, classes=classes)
                pool = [found for found in near if found.driver_id not in excluded]
                rows = []
                if pool:
                    sql, params = _candidate_statement(tier=tier, job=job, near=pool, limit=limit)
                    cursor.execute(sql, params)
                    rows = cursor.fetchall()
                if len(rows) >= limit:
                    break
                # Fewer than ``limit`` rows: every driver of the pool not among them failed
                # a filter. Left out from here on (and counted in what the index is asked
                # for, as the excluded are, so that each ask still brings new drivers).
                eligible = {row[0] for row in rows}
                excluded.update(f.driver_id for f in pool if f.driver_id not in eligible)
                if len(near) < count:
                    break  # the ring has no more to give
                count = max(count * NEAR_GROWTH, limit + len(excluded))
            if len(rows) >= limit:
                break
            if number >= WIDEN_AFTER_RINGS and search.nearest is None:
                search.widen()
                excluded |= search.unfit
    return [_row_candidate(tier, row, job) for row in rows]


def driver_skipped(
    *,
    tier: int,
    job: JobRequirements,
    now: datetime,
    limit: int,
    within_km: float | None = None,
    search: NearSearch | None = None,
) -> list[Candidate]:
    """Drivers of a tier near the pickup that fail a filter, each with the first reason:
    within ``within_km`` of the pickup, else within the tier's reach.

    Two views: the drivers the index holds there (at their indexed position; not seen
    recently when their fix is older than the matcher trusts), and drivers it does not
    hold whose row puts them there (offline, or silent too long)."""
    if not job.located:
        return []
    if tier == Tier.NATIONAL and (job.dropoff_lat is None or job.dropoff_lng is None):
        return []  # no corridor can join the pickup to a dropoff it does not have
    reach = _rings(tier)[-1]
    radius_km = reach if within_km is None else min(within_km, reach)
    search = search or NearSearch(job=job, now=now)
    # Asked a little wider than the radius: the index measures on its own sphere, and a
    # driver it leaves out here would be judged by their row as if silent.
    near = {
        found.driver_id: found
        for found in search.near(
            radius_km=radius_km * INDEX_MARGIN,
            count=TRAIL_NEAR_MAX,
            fresh_only=False,
            classes=None,
        )
    }
    indexed = [(found, not search.fresh(found)) for found in near.values()]
    sql, params = _skipped_statement(
        tier=tier, job=job, indexed=indexed, radius_km=radius_km, limit=limit
    )
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        rows = cursor.fetchall()
    # Nearest first (then driver, then vehicle), within the radius; only the ``limit``
    # kept become candidates (with no driver free near a busy pickup, hundreds fail).
    measured = []
    for row in rows:
        vehicle_id, driver_id, _, lat, lng, _, _ = row
        dead_km = haversine_km(lat, lng, job.pickup_lat, job.pickup_lng)
        if dead_km <= radius_km:
            measured.append(((dead_km, driver_id, vehicle_id), row))
    measured.sort(key=lambda m: m[0])
    return [_skipped_candidate(tier, row, job) for _, row in measured[:limit]]


def _fleet_reason(fleet: PartnerFleet, job: JobRequirements) -> str:
    account = fleet.account
    if account.kind != "partner" or not account.approved:
        return SkipReason.NOT_APPROVED
    licence = getattr(account, "operator_licence", None)
    if licence is not None and licence.licence_expiry < job.pickup_date:
        return SkipReason.LICENCE_EXPIRED
    if not account.webhook_url or account.webhook_disabled_at is not None:
        return SkipReason.NO_WEBHOOK
    if fleet.vehicle_classes and job.vehicle_type not in fleet.vehicle_classes:
        return SkipReason.WRONG_CLASS
    if job.passengers > fleet.max_passengers:
        return SkipReason.TOO_FEW_SEATS
    if job.wheelchair and not fleet.wheelchair_accessible:
        return SkipReason.NO_WHEELCHAIR_ACCESS
    if fleet.coverage_radius_km is not None and fleet.coverage_lat is not None:
        if not job.located:
            return SkipReason.PICKUP_NOT_LOCATED
        distance = haversine_km(
            fleet.coverage_lat, fleet.coverage_lng, job.pickup_lat, job.pickup_lng
        )
        if distance > fleet.coverage_radius_km:
            return SkipReason.OUTSIDE_COVERAGE
    return ""


def _fleet_distance(fleet: PartnerFleet, job: JobRequirements) -> float:
    if fleet.coverage_lat is None or fleet.coverage_lng is None or not job.located:
        return math.inf  # a nationwide fleet comes after fleets based near the pickup
    return haversine_km(fleet.coverage_lat, fleet.coverage_lng, job.pickup_lat, job.pickup_lng)


def fleet_candidates(
    *, job: JobRequirements, exclude_fleet_ids: Iterable[int] = (), include_skipped: bool = False
) -> list[Candidate]:
    """Active partner fleets, nearest coverage first; skipped ones only when asked for."""
    fleets = (
        PartnerFleet.objects.select_related("account", "account__operator_licence")
        .filter(active=True)
        .exclude(pk__in=list(exclude_fleet_ids))
    )
    ranked = sorted(fleets, key=lambda f: (_fleet_distance(f, job), f.pk))
    result = []
    for fleet in ranked:
        reason = _fleet_reason(fleet, job)
        if bool(reason) == include_skipped:
            result.append(
                Candidate(
                    tier=Tier.FLEET, fleet=fleet, subcontracted_to=fleet.account, reason=reason
                )
            )
    return result


def candidate_next(
    *,
    tier: int,
    job: JobRequirements,
    now: datetime,
    exclude_driver_ids: Iterable[int] = (),
    exclude_fleet_ids: Iterable[int] = (),
    search: NearSearch | None = None,
) -> Candidate | None:
    """The best eligible candidate of one tier, or None when the tier has nobody left;
    ``search``: the step's view of the index (a fresh one without it)."""
    if tier == Tier.FLEET:
        found = fleet_candidates(job=job, exclude_fleet_ids=exclude_fleet_ids)
    else:
        found = driver_candidates(
            tier=tier, job=job, now=now, exclude_driver_ids=exclude_driver_ids, search=search
        )
    return found[0] if found else None


def skipped_candidates(
    *,
    tier: int,
    job: JobRequirements,
    now: datetime,
    within_km: float | None = None,
    search: NearSearch | None = None,
) -> list[Candidate]:
    """Candidates of a tier that were passed over, with reasons, for the dispatch trail:
    drivers within ``within_km`` of the pickup (the distance of the driver offered the
    job: anyone further was not passed over, only further away), else within the tier's
    reach. Every fleet that fails a rule, as fleets are not ranked by distance alone."""
    limit = conf.trail_skipped_limit()
    if tier == Tier.FLEET:
        return fleet_candidates(job=job, include_skipped=True)[:limit]
    return driver_skipped(
        tier=tier, job=job, now=now, limit=limit, within_km=within_km, search=search
    )
