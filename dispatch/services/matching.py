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
side in this module: as one hand-written SQL statement over the drivers the index gave
(:data:`_CANDIDATES_SQL`, the hot path of every dispatch step), and as the ORM conditions
under which a candidate fails (:func:`_driver_rules`), which give skipped candidates the
first reason that failed for the trail. The tests check every filter through both, and
bench/bench_dispatch.py checks that both choose the same drivers over 100,000.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from decimal import Decimal

from django.db import connection
from django.db.models import Case, Count, Exists, F, OuterRef, Q, QuerySet, Subquery, Value, When
from django.db.models import CharField as CharFieldType
from django.db.models.functions import Coalesce

from core.geo import (
    KM_PER_DEGREE,
    bounding_box,
    distance_sq_km_expression,
    haversine_km,
    km_to_miles,
)
from core.localtime import local_datetime
from dispatch import conf
from dispatch.models import Offer, OfferStatus, OperatorLicence, PartnerFleet, SkipReason, Tier
from drivers.models import APPROVED_STAGES, Corridor, Driver, NetworkTier, Vehicle
from drivers.positions import NearDriver, drivers_near
from pricing.vehicles import VEHICLE_CLASSES_SERVING, vehicle_class_needs_wheelchair

DRIVER_TIERS = (Tier.LOCAL, Tier.NATIONAL)
TIERS = (Tier.LOCAL, Tier.NATIONAL, Tier.FLEET)


@dataclass(frozen=True)
class JobRequirements:
    """What a booking asks of a driver, independent of how the booking is stored."""

    pickup_lat: float | None
    pickup_lng: float | None
    dropoff_lat: float | None
    dropoff_lng: float | None
    pickup_date: date
    passengers: int
    vehicle_type: str
    wheelchair: bool
    # The span the job keeps its driver busy (job_busy_window); None: count every job held.
    busy_from: datetime | None = None
    busy_until: datetime | None = None

    @classmethod
    def for_booking(cls, booking) -> JobRequirements:
        # Licences and plates expire at the end of a UK calendar day.
        local = local_datetime(booking.pickup_time)
        return cls(
            pickup_lat=booking.pickup_lat,
            pickup_lng=booking.pickup_lng,
            dropoff_lat=booking.dropoff_lat,
            dropoff_lng=booking.dropoff_lng,
            pickup_date=local.date(),
            passengers=booking.passengers,
            vehicle_type=booking.vehicle_type,
            wheelchair=bool(booking.wheelchair_access)
            or vehicle_class_needs_wheelchair(booking.vehicle_type),
            **dict(
                zip(
                    ("busy_from", "busy_until"),
                    job_busy_window(booking.pickup_time, booking.duration_minutes),
                    strict=True,
                )
            ),
        )

    @property
    def located(self) -> bool:
        return self.pickup_lat is not None and self.pickup_lng is not None


def job_busy_window(pickup_time: datetime, duration_minutes: int | None) -> tuple:
    """The span a job keeps its driver busy (capacity in time, issue 34): from its pickup
    to its estimated end (the priced minutes, else ``conf.unknown_duration_minutes``) plus
    ``conf.travel_to_next_pickup_minutes`` to reach the next pickup."""
    minutes = duration_minutes if duration_minutes else conf.unknown_duration_minutes()
    return pickup_time, pickup_time + timedelta(
        minutes=minutes + conf.travel_to_next_pickup_minutes()
    )


def jobs_overlapping(job: JobRequirements) -> QuerySet:
    """The accepted, unreleased jobs (offer rows) whose busy span overlaps ``job``'s; a
    row without a span (from before) overlaps everything."""
    held = Offer.objects.filter(status=OfferStatus.ACCEPTED, released_at__isnull=True)
    if job.busy_from is None:
        return held
    return held.filter(
        Q(busy_from__isnull=True) | Q(busy_from__lt=job.busy_until, busy_until__gt=job.busy_from)
    )


@dataclass(frozen=True)
class Candidate:
    tier: int
    driver: Driver | None = None
    vehicle: Vehicle | None = None
    fleet: PartnerFleet | None = None
    dead_km: float | None = None
    subcontracted_to: object | None = None  # partners.Account, s55A
    reason: str = ""  # empty when eligible

    @property
    def dead_miles(self) -> Decimal | None:
        return None if self.dead_km is None else km_to_miles(self.dead_km)


def _driver_rules(*, job: JobRequirements, seen_fails: Q) -> list[tuple[str, Q]]:
    """(reason, condition under which a vehicle row fails), in the order reasons are given.

    ``seen_fails``: the rows whose driver has no recent position in the index."""
    classes = VEHICLE_CLASSES_SERVING.get(job.vehicle_type, frozenset({job.vehicle_type}))
    rules = [
        (
            SkipReason.NOT_APPROVED,
            ~Q(driver__stage__in=APPROVED_STAGES) | Q(driver__approved_at__isnull=True),
        ),
        (SkipReason.LICENCE_EXPIRED, Q(driver__licence_expiry__lt=job.pickup_date)),
        (SkipReason.PLATE_EXPIRED, Q(plate_expiry__lt=job.pickup_date)),
        (
            SkipReason.LICENSING_MISMATCH,
            ~Q(licensing_authority=F("driver__licensing_authority"))
            | (
                Q(operator_authority__isnull=False)
                & ~Q(operator_authority=F("driver__licensing_authority"))
            ),
        ),
        (SkipReason.OFFLINE, Q(driver__online=False)),
        (SkipReason.NOT_SEEN_RECENTLY, seen_fails),
        (SkipReason.AT_CAPACITY, Q(overlapping_jobs__gte=F("driver__max_jobs"))),
        (SkipReason.OFFER_PENDING, Q(offer_pending=True)),
        (SkipReason.TOO_FEW_SEATS, Q(seats__lt=job.passengers)),
        (SkipReason.WRONG_CLASS, ~Q(vehicle_class__in=sorted(classes))),
    ]
    if job.wheelchair:
        rules.append((SkipReason.NO_WHEELCHAIR_ACCESS, Q(wheelchair_accessible=False)))
    return rules


def _corridor_driver_ids(job: JobRequirements) -> QuerySet:
    """Drivers with a corridor joining the pickup and the dropoff, in either direction."""
    radius_sq = F("radius_km") * F("radius_km")
    return (
        Corridor.objects.annotate(
            o_pick=distance_sq_km_expression(
                "origin_lat", "origin_lng", job.pickup_lat, job.pickup_lng
            ),
            d_drop=distance_sq_km_expression(
                "destination_lat", "destination_lng", job.dropoff_lat, job.dropoff_lng
            ),
            d_pick=distance_sq_km_expression(
                "destination_lat", "destination_lng", job.pickup_lat, job.pickup_lng
            ),
            o_drop=distance_sq_km_expression(
                "origin_lat", "origin_lng", job.dropoff_lat, job.dropoff_lng
            ),
        )
        .filter(
            Q(o_pick__lte=radius_sq, d_drop__lte=radius_sq)
            | Q(d_pick__lte=radius_sq, o_drop__lte=radius_sq)
        )
        .values("driver_id")
    )


def _vehicle_rows(*, tier: int, job: JobRequirements) -> QuerySet:
    """Active vehicles of the tier's drivers, with what the rules need annotated."""
    pool = Vehicle.objects.filter(active=True).annotate(
        operator_authority=F("driver__approved_by__operator_licence__licensing_authority"),
        offer_pending=Exists(
            Offer.objects.filter(driver_id=OuterRef("driver_id"), status=OfferStatus.OPEN)
        ),
        overlapping_jobs=Coalesce(
            Subquery(
                jobs_overlapping(job)
                .filter(driver_id=OuterRef("driver_id"))
                .values("driver_id")
                .annotate(n=Count("pk"))
                .values("n")[:1]
            ),
            0,
        ),
    )
    if tier == Tier.LOCAL:
        pool = pool.annotate(
            base_sq=distance_sq_km_expression(
                "driver__base_lat", "driver__base_lng", job.pickup_lat, job.pickup_lng
            )
        ).filter(
            driver__network=NetworkTier.LOCAL,
            base_sq__lte=F("driver__operating_radius_km") * F("driver__operating_radius_km"),
        )
    else:
        pool = pool.filter(driver__network=NetworkTier.NATIONAL)
        if job.dropoff_lat is None or job.dropoff_lng is None:
            return pool.none()
        pool = pool.filter(driver_id__in=_corridor_driver_ids(job))
    return pool.select_related("driver")


def _vehicles_by_row_position(*, tier: int, job: JobRequirements, radius_km: float) -> QuerySet:
    """:func:`_vehicle_rows` of drivers whose row puts them within ``radius_km`` of the
    pickup (where they last went online): the trail's view of drivers the index does not
    hold (offline, or silent for too long)."""
    min_lat, max_lat, min_lng, max_lng = bounding_box(job.pickup_lat, job.pickup_lng, radius_km)
    return (
        _vehicle_rows(tier=tier, job=job)
        .filter(
            driver__last_lat__gte=min_lat,
            driver__last_lat__lte=max_lat,
            driver__last_lng__gte=min_lng,
            driver__last_lng__lte=max_lng,
        )
        .annotate(
            dead_sq=distance_sq_km_expression(
                "driver__last_lat", "driver__last_lng", job.pickup_lat, job.pickup_lng
            )
        )
        .filter(dead_sq__lte=radius_km * radius_km)
    )


def _rings(tier: int, *, searching: bool = False) -> list[float]:
    rings = list(conf.search_rings_km())
    if tier == Tier.NATIONAL:
        furthest = conf.national_pickup_radius_km()
        rings = [r for r in rings if r < furthest] + [furthest]
    elif searching:
        # A city centre has hundreds of local drivers inside the first ring, and the cost
        # of a ring is the drivers in it; a quarter of its radius (a sixteenth of the
        # drivers) usually holds a free one already.
        rings.insert(0, rings[0] / 4)
    return rings


def _as_candidate(
    tier: int, vehicle: Vehicle, job: JobRequirements, *, position: tuple[float, float], reason: str
) -> Candidate:
    driver = vehicle.driver
    driver.last_lat, driver.last_lng = position  # where the index has them, for the offer
    return Candidate(
        tier=tier,
        driver=driver,
        vehicle=vehicle,
        dead_km=haversine_km(*position, job.pickup_lat, job.pickup_lng),
        # A national driver works for their own licensed operator: the job is subcontracted.
        subcontracted_to=driver.approved_by if tier == Tier.NATIONAL else None,
        reason=reason,
    )


def _distance_sq_sql(lat_column: str, lng_column: str, point: str) -> str:
    """SQL for :func:`core.geo.distance_sq_km_expression` around the ``point`` parameters.

    The same arithmetic, so that both forms of the matcher rank drivers identically.
    """
    dy = f"(({lat_column} - %({point}_lat)s) * %(km_per_degree)s)"
    dx = f"(({lng_column} - %({point}_lng)s) * %({point}_kx)s)"
    return f"{dy} * {dy} + {dx} * {dx}"


def _sql_literal(value: str) -> str:
    # Only for the code's own constants (statuses, stages), never for input: written into
    # the statement so that the planner can match partial indexes such as
    # offer_one_open_per_driver (WHERE status = 'open') even with server-side binding.
    if not value.replace("_", "").isalnum():
        raise ValueError(f"not a plain constant: {value!r}")
    return f"'{value}'"


def _sql_in(column: str, values: Iterable, name: str, params: dict) -> str:
    """``column IN (...)`` with one named parameter per value (portable to SQLite)."""
    names = []
    for i, value in enumerate(values):
        params[f"{name}_{i}"] = value
        names.append(f"%({name}_{i})s")
    return f"{column} IN ({', '.join(names)})"


_DRIVER = Driver._meta.db_table
_VEHICLE = Vehicle._meta.db_table
_OFFER = Offer._meta.db_table
_CORRIDOR = Corridor._meta.db_table
_OPERATOR_LICENCE = OperatorLicence._meta.db_table
_APPROVED_STAGES_SQL = ", ".join(_sql_literal(stage) for stage in APPROVED_STAGES)

# The candidate filter, the matcher's hot path: one statement per ring over the drivers the
# position index found there (the CTE ``near``: id and indexed position), one row per
# driver. It is the negation of every rule in _driver_rules, in plain SQL, because
# building the same query through the ORM took three times as long as running it
# (bench_dispatch). Freshness is the index's (drivers_near's seen_after), not a column's.
# The vehicle is a correlated subquery rather than a join: one row per driver with no
# de-duplication in Python, and a statement the planner settles faster; it picks the
# driver's lowest-id eligible vehicle, as ordering the ORM's (driver, vehicle) rows by
# (dead mileage, load, driver, vehicle) did.
_CANDIDATES_SQL = f"""
WITH near (driver_id, lat, lng) AS (VALUES {{near}})
SELECT driver_id, vehicle_id, lat, lng, approved_by_id
FROM (
    SELECT
        d.id AS driver_id, near.lat, near.lng, d.approved_by_id, d.current_jobs,
        {_distance_sq_sql("near.lat", "near.lng", "pickup")} AS dead_sq,
        (
            SELECT v.id FROM {_VEHICLE} v
            WHERE v.driver_id = d.id
                AND v.active = TRUE
                AND v.plate_expiry >= %(pickup_date)s
                AND v.licensing_authority = d.licensing_authority
                AND v.seats >= %(passengers)s
                AND {{vehicle_class_in}}
                {{wheelchair}}
            ORDER BY v.id
            LIMIT 1
        ) AS vehicle_id
    FROM near
    JOIN {_DRIVER} d ON d.id = near.driver_id
    WHERE d.online = TRUE
        AND d.stage IN ({_APPROVED_STAGES_SQL})
        AND d.approved_at IS NOT NULL
        AND d.licence_expiry >= %(pickup_date)s
        AND {{load}}
        {{tier}}
        AND NOT EXISTS (
            SELECT 1 FROM {_OPERATOR_LICENCE} ol
            WHERE ol.account_id = d.approved_by_id
                AND ol.licensing_authority <> d.licensing_authority
        )
        AND NOT EXISTS (
            SELECT 1 FROM {_OFFER} o
            WHERE o.driver_id = d.id AND o.status = {_sql_literal(OfferStatus.OPEN)}
        )
) AS candidate
WHERE vehicle_id IS NOT NULL
ORDER BY dead_sq, current_jobs, driver_id
LIMIT %(limit)s
"""  # noqa: S608 (tables and constants only; every value is a parameter)

# The driver's load for this job: the jobs they hold whose busy span overlaps the job's
# (jobs_overlapping, in SQL), below their limit.
_LOAD_IN_TIME_SQL = f"""(
            SELECT COUNT(*) FROM {_OFFER} h
            WHERE h.driver_id = d.id
                AND h.status = {_sql_literal(OfferStatus.ACCEPTED)}
                AND h.released_at IS NULL
                AND (h.busy_from IS NULL
                     OR (h.busy_from < %(busy_until)s AND h.busy_until > %(busy_from)s))
        ) < d.max_jobs"""  # noqa: S608 (tables and constants only)

_LOCAL_TIER_SQL = f"""
        AND d.network = {_sql_literal(NetworkTier.LOCAL)}
        AND {_distance_sq_sql("d.base_lat", "d.base_lng", "pickup")}
            <= d.operating_radius_km * d.operating_radius_km"""

# Either direction: pickup near the origin and dropoff near the destination, or the reverse.
_NATIONAL_TIER_SQL = f"""
        AND d.network = {_sql_literal(NetworkTier.NATIONAL)}
        AND d.id IN (
            SELECT c.driver_id FROM {_CORRIDOR} c
            WHERE (
                {_distance_sq_sql("c.origin_lat", "c.origin_lng", "pickup")}
                    <= c.radius_km * c.radius_km
                AND {_distance_sq_sql("c.destination_lat", "c.destination_lng", "dropoff")}
                    <= c.radius_km * c.radius_km
            ) OR (
                {_distance_sq_sql("c.destination_lat", "c.destination_lng", "pickup")}
                    <= c.radius_km * c.radius_km
                AND {_distance_sq_sql("c.origin_lat", "c.origin_lng", "dropoff")}
                    <= c.radius_km * c.radius_km
            )
        )"""  # noqa: S608 (tables and constants only)


def _point_params(name: str, lat: float, lng: float) -> dict:
    return {
        f"{name}_lat": lat,
        f"{name}_lng": lng,
        f"{name}_kx": KM_PER_DEGREE * math.cos(math.radians(lat)),
    }


def _candidate_statement(
    *, tier: int, job: JobRequirements, near: list[NearDriver], limit: int
) -> tuple[str, dict]:
    """The candidate filter of a tier over the drivers ``near`` and its parameters."""
    ops = connection.ops
    classes = VEHICLE_CLASSES_SERVING.get(job.vehicle_type, frozenset({job.vehicle_type}))
    params = {
        "km_per_degree": KM_PER_DEGREE,
        **_point_params("pickup", job.pickup_lat, job.pickup_lng),
        "pickup_date": ops.adapt_datefield_value(job.pickup_date),
        "passengers": job.passengers,
        "limit": limit,
    }
    if tier == Tier.NATIONAL:
        params.update(_point_params("dropoff", job.dropoff_lat, job.dropoff_lng))
    rows = []
    for i, found in enumerate(near):
        params.update({f"n{i}": found.driver_id, f"n{i}_lat": found.lat, f"n{i}_lng": found.lng})
        rows.append(f"(%(n{i})s, %(n{i}_lat)s, %(n{i}_lng)s)")
    sql = _CANDIDATES_SQL.format(
        near=", ".join(rows),
        vehicle_class_in=_sql_in("v.vehicle_class", sorted(classes), "vehicle_class", params),
        wheelchair="AND v.wheelchair_accessible = TRUE" if job.wheelchair else "",
        tier=_LOCAL_TIER_SQL if tier == Tier.LOCAL else _NATIONAL_TIER_SQL,
        load=_LOAD_IN_TIME_SQL if job.busy_from is not None else "d.current_jobs < d.max_jobs",
    )
    if job.busy_from is not None:
        params["busy_from"] = ops.adapt_datetimefield_value(job.busy_from)
        params["busy_until"] = ops.adapt_datetimefield_value(job.busy_until)
    return sql, params


def _deferred_instance(model, **values):
    # from_db takes the values in the model's field order.
    names = [f.attname for f in model._meta.concrete_fields if f.attname in values]
    return model.from_db(connection.alias, names, [values[name] for name in names])


def _row_candidate(tier: int, row: tuple, job: JobRequirements) -> Candidate:
    driver_id, vehicle_id, lat, lng, approved_by_id = row
    # Instances with the other columns deferred, as .only() builds them: what dispatch
    # needs (ids, the indexed position, operator) without a second query; anything else
    # loads on use.
    driver = _deferred_instance(
        Driver, id=driver_id, last_lat=lat, last_lng=lng, approved_by_id=approved_by_id
    )
    vehicle = _deferred_instance(Vehicle, id=vehicle_id, driver_id=driver_id)
    vehicle.driver = driver
    return Candidate(
        tier=tier,
        driver=driver,
        vehicle=vehicle,
        dead_km=haversine_km(lat, lng, job.pickup_lat, job.pickup_lng),
        # A national driver works for their own licensed operator: the job is subcontracted.
        subcontracted_to=driver.approved_by if tier == Tier.NATIONAL else None,
    )


# Drivers asked of the index per ring at first; a ring whose nearest drivers all fail a
# filter is asked again for this many times more, until it has no more to give.
NEAR_FIRST, NEAR_GROWTH = 16, 4
# At most this many drivers near the pickup are looked at for the trail's skip reasons.
TRAIL_NEAR_MAX = 500
# The index's distances (Redis: its own Earth radius) and haversine_km differ by < 0.1 %.
INDEX_MARGIN = 1.01


def driver_candidates(
    *,
    tier: int,
    job: JobRequirements,
    now: datetime,
    exclude_driver_ids: Iterable[int] = (),
    limit: int = 1,
) -> list[Candidate]:
    """Eligible drivers of a driver tier, nearest first (then least loaded).

    Searched ring by ring: a driver found inside a ring is nearer than anyone outside it,
    so the first ring with ``limit`` drivers (or the last ring) gives the answer. In each
    ring the index gives the nearest drivers seen recently, and the filters run on them.
    """
    if not job.located:
        return []
    if tier == Tier.NATIONAL and (job.dropoff_lat is None or job.dropoff_lng is None):
        return []
    excluded = set(exclude_driver_ids)
    seen_after = now - timedelta(seconds=conf.driver_seen_within_seconds())
    classes = VEHICLE_CLASSES_SERVING.get(job.vehicle_type, frozenset({job.vehicle_type}))
    rows: list[tuple] = []
    with connection.cursor() as cursor:
        for ring in _rings(tier, searching=True):
            count = max(NEAR_FIRST, limit + len(excluded))
            while True:
                near = drivers_near(
                    lat=job.pickup_lat,
                    lng=job.pickup_lng,
                    radius_km=ring,
                    vehicle_classes=classes,
                    seen_after=seen_after,
                    count=count,
                )
                pool = [found for found in near if found.driver_id not in excluded]
                rows = []
                if pool:
                    sql, params = _candidate_statement(tier=tier, job=job, near=pool, limit=limit)
                    cursor.execute(sql, params)
                    rows = cursor.fetchall()
                if len(rows) >= limit or len(near) < count:
                    break
                count *= NEAR_GROWTH
            if len(rows) >= limit:
                break
    return [_row_candidate(tier, row, job) for row in rows]


def driver_skipped(
    *, tier: int, job: JobRequirements, now: datetime, limit: int, within_km: float | None = None
) -> list[Candidate]:
    """Drivers of a tier near the pickup that fail a filter, each with the first reason:
    within ``within_km`` of the pickup, else within the tier's reach.

    Two views: the drivers the index holds there (at their indexed position; not seen
    recently when their fix is older than the matcher trusts), and drivers it does not
    hold whose row puts them there (offline, or silent too long)."""
    if not job.located:
        return []
    reach = _rings(tier)[-1]
    radius_km = reach if within_km is None else min(within_km, reach)
    seen_after = now - timedelta(seconds=conf.driver_seen_within_seconds())
    # Asked a little wider than the radius: the index measures on its own sphere, and a
    # driver it leaves out here would be judged by their row as if silent.
    near = {
        found.driver_id: found
        for found in drivers_near(
            lat=job.pickup_lat,
            lng=job.pickup_lng,
            radius_km=radius_km * INDEX_MARGIN,
            vehicle_classes=None,
            seen_after=None,
            count=TRAIL_NEAR_MAX,
        )
    }
    stale = [
        pk for pk, found in near.items() if found.seen_at is None or found.seen_at < seen_after
    ]

    def reasons(seen_fails: Q) -> Case:
        return Case(
            *[
                When(fails, then=Value(str(code)))
                for code, fails in _driver_rules(job=job, seen_fails=seen_fails)
            ],
            default=Value(""),
            output_field=CharFieldType(),
        )

    indexed = (
        _vehicle_rows(tier=tier, job=job)
        .filter(driver_id__in=list(near))
        .annotate(skip_reason=reasons(Q(driver_id__in=stale)))
        .exclude(skip_reason="")
    )
    unindexed = (
        _vehicles_by_row_position(tier=tier, job=job, radius_km=radius_km)
        .exclude(driver_id__in=list(near))
        .annotate(skip_reason=reasons(Q(pk__isnull=False)))  # no recent fix: always fails
        .exclude(skip_reason="")
        .order_by("dead_sq", "driver_id", "id")[:limit]
    )
    skipped = [
        _as_candidate(
            tier,
            vehicle,
            job,
            position=(near[vehicle.driver_id].lat, near[vehicle.driver_id].lng),
            reason=vehicle.skip_reason,
        )
        for vehicle in indexed
    ] + [
        _as_candidate(
            tier,
            vehicle,
            job,
            position=(vehicle.driver.last_lat, vehicle.driver.last_lng),
            reason=vehicle.skip_reason,
        )
        for vehicle in unindexed
    ]
    skipped = [c for c in skipped if c.dead_km <= radius_km]
    skipped.sort(key=lambda c: (c.dead_km, c.driver.pk, c.vehicle.pk))
    return skipped[:limit]


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
) -> Candidate | None:
    """The best eligible candidate of one tier, or None when the tier has nobody left."""
    if tier == Tier.FLEET:
        found = fleet_candidates(job=job, exclude_fleet_ids=exclude_fleet_ids)
    else:
        found = driver_candidates(
            tier=tier, job=job, now=now, exclude_driver_ids=exclude_driver_ids
        )
    return found[0] if found else None


def skipped_candidates(
    *, tier: int, job: JobRequirements, now: datetime, within_km: float | None = None
) -> list[Candidate]:
    """Candidates of a tier that were passed over, with reasons, for the dispatch trail:
    drivers within ``within_km`` of the pickup (the distance of the driver offered the
    job: anyone further was not passed over, only further away), else within the tier's
    reach. Every fleet that fails a rule, as fleets are not ranked by distance alone."""
    limit = conf.trail_skipped_limit()
    if tier == Tier.FLEET:
        return fleet_candidates(job=job, include_skipped=True)[:limit]
    return driver_skipped(tier=tier, job=job, now=now, limit=limit, within_km=within_km)


# The rules an assignment by hand is held to: every rule of the job itself (licences,
# licensing area, seats, class, wheelchair access), not where the driver is now or
# whether their app is on (an operator assigns ahead for its own fleet); the job limit
# is booking_assign_manual's own check (409 driver_busy).
ASSIGNMENT_RULES = frozenset(
    {
        SkipReason.NOT_APPROVED,
        SkipReason.LICENCE_EXPIRED,
        SkipReason.PLATE_EXPIRED,
        SkipReason.LICENSING_MISMATCH,
        SkipReason.TOO_FEW_SEATS,
        SkipReason.WRONG_CLASS,
        SkipReason.NO_WHEELCHAIR_ACCESS,
    }
)
ASSIGNMENT_REFUSAL_WORDS = {
    SkipReason.NOT_APPROVED: "the driver is not approved",
    SkipReason.LICENCE_EXPIRED: "the driver's licence has expired by the pickup date",
    SkipReason.PLATE_EXPIRED: "the vehicle's plate has expired by the pickup date",
    SkipReason.LICENSING_MISMATCH: (
        "the driver, the vehicle and the operator are not licensed by the same authority"
    ),
    SkipReason.TOO_FEW_SEATS: "the vehicle has too few seats for the party",
    SkipReason.WRONG_CLASS: "the vehicle's class does not serve the booked class",
    SkipReason.NO_WHEELCHAIR_ACCESS: "the booking needs a wheelchair-accessible vehicle",
}


def assignment_refusal(*, job: JobRequirements, vehicle_id: int) -> str:
    """The first rule of central dispatch's matcher (``_driver_rules``, the same ORM
    conditions the trail uses) that ``vehicle`` and its driver fail for ``job``, among
    ``ASSIGNMENT_RULES``; empty when central dispatch could offer it to them."""
    rules = [
        When(fails, then=Value(str(code)))
        for code, fails in _driver_rules(job=job, seen_fails=Q(pk__isnull=True))
        if code in ASSIGNMENT_RULES
    ]
    reason = (
        Vehicle.objects.filter(pk=vehicle_id)
        .annotate(
            operator_authority=F("driver__approved_by__operator_licence__licensing_authority"),
            refusal=Case(*rules, default=Value(""), output_field=CharFieldType()),
        )
        .values_list("refusal", flat=True)
        .first()
    )
    return reason or ""
