"""The matcher's SQL form: one hand-written statement over the drivers the position
index gave (:data:`_CANDIDATES_SQL`, the hot path of every dispatch step); the negation of
every rule of ``dispatch.services.matching.rules._driver_rules``. And the trail's: the
first rule each driver near the pickup fails (:data:`_SKIPPED_SQL`), the same rules in the
same order as ``_driver_rules``, in one statement per tier."""

from __future__ import annotations

import math
from collections.abc import Iterable

from django.db import connection

from core.geo import (
    KM_PER_DEGREE,
    bounding_box,
    haversine_km,
)
from dispatch.models import Offer, OfferStatus, OperatorLicence, SkipReason, Tier
from dispatch.services.matching.requirements import Candidate, JobRequirements
from drivers.models import APPROVED_STAGES, Corridor, Driver, NetworkTier, Vehicle
from drivers.positions import NearDriver
from pricing.vehicles import VEHICLE_CLASSES_SERVING


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
WITH near (driver_id, lat, lng) AS ({{near}})
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


def _array_literal(values: Iterable[int | float]) -> str:
    """PostgreSQL's text form of an array of numbers: ``{1,2.5,3}``."""
    return "{" + ",".join(map(str, values)) + "}"


def _near_rows(near: list[NearDriver], params: dict, stale: list[bool] | None = None) -> str:
    """The rows of the CTE ``near`` (driver id, indexed position, and whether the fix is
    too old when ``stale`` is given). On PostgreSQL, arrays unnested: three or four
    parameters whatever the number of drivers, so the statement's text is the same each
    time and psycopg converts it once (as a VALUES list of hundreds of drivers, parsing
    its placeholders cost more than running it). Each array goes as the text of its
    literal, cast in the statement: psycopg's dumper of a Python list works element by
    element in Python, a tenth of a no_driver step's CPU (issue 41); ``str`` of an int or
    a float is exact (a float's shortest repr reads back as the same float8). Each array
    is a scalar subquery, so that PostgreSQL cannot count its elements while planning:
    otherwise a plan for one call's three drivers looks cheaper than the prepared
    statement's generic plan (which assumes 10), and the ring search was planned again on
    every call, 0.6 ms of planning for 0.1 ms of running (issue 41). Elsewhere a VALUES
    list."""
    if connection.vendor == "postgresql":
        params["near_id"] = _array_literal(found.driver_id for found in near)
        params["near_lat"] = _array_literal(found.lat for found in near)
        params["near_lng"] = _array_literal(found.lng for found in near)
        arrays = ["%(near_id)s::bigint[]", "%(near_lat)s::float8[]", "%(near_lng)s::float8[]"]
        if stale is not None:
            params["near_stale"] = "{" + ",".join("t" if s else "f" for s in stale) + "}"
            arrays.append("%(near_stale)s::boolean[]")
        unplanned = ", ".join(f"(SELECT {array})" for array in arrays)
        return f"SELECT * FROM unnest({unplanned})"  # noqa: S608 (placeholders only)
    rows = []
    for i, found in enumerate(near):
        params.update({f"n{i}": found.driver_id, f"n{i}_lat": found.lat, f"n{i}_lng": found.lng})
        row = [f"%(n{i})s", f"%(n{i}_lat)s", f"%(n{i}_lng)s"]
        if stale is not None:
            params[f"n{i}_stale"] = stale[i]
            row.append(f"%(n{i}_stale)s")
        rows.append(f"({', '.join(row)})")
    return f"VALUES {', '.join(rows)}"


_TIER_SQL = {Tier.LOCAL: _LOCAL_TIER_SQL, Tier.NATIONAL: _NATIONAL_TIER_SQL}


def _candidate_statement(
    *, tier: int | None, job: JobRequirements, near: list[NearDriver], limit: int
) -> tuple[str, dict]:
    """The candidate filter of a tier over the drivers ``near`` and its parameters; with
    no ``tier``, every rule but the tier's own (who may serve the job in some driver tier)."""
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
    sql = _CANDIDATES_SQL.format(
        near=_near_rows(near, params),
        vehicle_class_in=_sql_in("v.vehicle_class", sorted(classes), "vehicle_class", params),
        wheelchair="AND v.wheelchair_accessible = TRUE" if job.wheelchair else "",
        tier=_TIER_SQL.get(tier, ""),
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


def _row_candidate(tier: int, row: tuple, job: JobRequirements, reason: str = "") -> Candidate:
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
        reason=reason,
    )


def _skipped_candidate(tier: int, row: tuple, job: JobRequirements) -> Candidate:
    """A row of :func:`_skipped_statement` as a skipped candidate with its reason."""
    vehicle_id, driver_id, approved_by_id, lat, lng, _dead_sq, reason = row
    return _row_candidate(tier, (driver_id, vehicle_id, lat, lng, approved_by_id), job, reason)


# The trail's skip reasons: every active vehicle of the tier's drivers with the first rule
# it fails, in _driver_rules' order (the tests hold it against _CANDIDATES_SQL at each
# rule's limit). Hand-written for the same reason as _CANDIDATES_SQL: the ORM took five
# times longer to build this statement than PostgreSQL took to run it, and it runs in
# every dispatch step. ``{seen_fails}``: the rows whose driver has no recent position in
# the index; ``{position}``: where the trail places the driver.
_SKIP_REASON_ROWS_SQL = f"""
    SELECT
        v.id AS vehicle_id, d.id AS driver_id, d.approved_by_id,
        {{position_lat}} AS lat, {{position_lng}} AS lng,
        {_distance_sq_sql("{position_lat}", "{position_lng}", "pickup")} AS dead_sq,
        CASE
            WHEN d.stage NOT IN ({_APPROVED_STAGES_SQL}) OR d.approved_at IS NULL
                THEN {_sql_literal(SkipReason.NOT_APPROVED)}
            WHEN d.licence_expiry < %(pickup_date)s
                THEN {_sql_literal(SkipReason.LICENCE_EXPIRED)}
            WHEN v.plate_expiry < %(pickup_date)s THEN {_sql_literal(SkipReason.PLATE_EXPIRED)}
            WHEN v.licensing_authority <> d.licensing_authority
                OR EXISTS (
                    SELECT 1 FROM {_OPERATOR_LICENCE} ol
                    WHERE ol.account_id = d.approved_by_id
                        AND ol.licensing_authority <> d.licensing_authority
                )
                THEN {_sql_literal(SkipReason.LICENSING_MISMATCH)}
            WHEN d.online = FALSE THEN {_sql_literal(SkipReason.OFFLINE)}
            WHEN {{seen_fails}} THEN {_sql_literal(SkipReason.NOT_SEEN_RECENTLY)}
            WHEN (
                SELECT COUNT(*) FROM {_OFFER} h
                WHERE h.driver_id = d.id
                    AND h.status = {_sql_literal(OfferStatus.ACCEPTED)}
                    AND h.released_at IS NULL
                    {{overlapping}}
            ) >= d.max_jobs THEN {_sql_literal(SkipReason.AT_CAPACITY)}
            WHEN EXISTS (
                SELECT 1 FROM {_OFFER} o
                WHERE o.driver_id = d.id AND o.status = {_sql_literal(OfferStatus.OPEN)}
            ) THEN {_sql_literal(SkipReason.OFFER_PENDING)}
            WHEN v.seats < %(passengers)s THEN {_sql_literal(SkipReason.TOO_FEW_SEATS)}
            WHEN NOT {{vehicle_class_in}} THEN {_sql_literal(SkipReason.WRONG_CLASS)}
            {{wheelchair}}
            ELSE ''
        END AS reason
    FROM {_VEHICLE} v
    JOIN {_DRIVER} d ON d.id = v.driver_id
    {{join}}
    WHERE v.active = TRUE
        {{tier}}
        {{where}}"""  # noqa: S608 (tables and constants only; every value is a parameter)

# The busy span of a held job overlaps the job's (jobs_overlapping); without a span for
# the job, every job held counts.
_OVERLAPPING_SQL = """AND (h.busy_from IS NULL
                         OR (h.busy_from < %(busy_until)s AND h.busy_until > %(busy_from)s))"""

# Drivers whose row (where they last went online) puts them within the radius.
_ROW_WITHIN_SQL = f"""
        AND d.last_lat BETWEEN %(min_lat)s AND %(max_lat)s
        AND d.last_lng BETWEEN %(min_lng)s AND %(max_lng)s
        AND {_distance_sq_sql("d.last_lat", "d.last_lng", "pickup")} <= %(radius_sq)s"""
_NOT_INDEXED_SQL = """
        AND d.id NOT IN (SELECT driver_id FROM near)"""

_WHEELCHAIR_REASON_SQL = (
    f"WHEN v.wheelchair_accessible = FALSE THEN {_sql_literal(SkipReason.NO_WHEELCHAIR_ACCESS)}"
)


def _skipped_statement(
    *,
    tier: int,
    job: JobRequirements,
    indexed: list[tuple[NearDriver, bool]],
    radius_km: float,
    limit: int,
) -> tuple[str, dict]:
    """The skip reasons of a tier's vehicles, two views in one statement: the drivers
    ``indexed`` near the pickup (with whether their fix is too old), at their indexed
    position, every one that fails a rule; and the ``limit`` nearest drivers the index
    does not hold whose row puts them within ``radius_km`` (where they last went online),
    who fail at least for having no recent position."""
    ops = connection.ops
    classes = VEHICLE_CLASSES_SERVING.get(job.vehicle_type, frozenset({job.vehicle_type}))
    min_lat, max_lat, min_lng, max_lng = bounding_box(job.pickup_lat, job.pickup_lng, radius_km)
    params = {
        "km_per_degree": KM_PER_DEGREE,
        **_point_params("pickup", job.pickup_lat, job.pickup_lng),
        "pickup_date": ops.adapt_datefield_value(job.pickup_date),
        "passengers": job.passengers,
        "limit": limit,
        "min_lat": min_lat,
        "max_lat": max_lat,
        "min_lng": min_lng,
        "max_lng": max_lng,
        "radius_sq": radius_km * radius_km,
    }
    if tier == Tier.NATIONAL:
        params.update(_point_params("dropoff", job.dropoff_lat, job.dropoff_lng))
    if job.busy_from is not None:
        params["busy_from"] = ops.adapt_datetimefield_value(job.busy_from)
        params["busy_until"] = ops.adapt_datetimefield_value(job.busy_until)
    shared = {
        "overlapping": _OVERLAPPING_SQL if job.busy_from is not None else "",
        "vehicle_class_in": _sql_in("v.vehicle_class", sorted(classes), "vehicle_class", params),
        "wheelchair": _WHEELCHAIR_REASON_SQL if job.wheelchair else "",
        "tier": _LOCAL_TIER_SQL if tier == Tier.LOCAL else _NATIONAL_TIER_SQL,
    }
    unindexed = _SKIP_REASON_ROWS_SQL.format(
        **shared,
        position_lat="d.last_lat",
        position_lng="d.last_lng",
        seen_fails="TRUE",  # no recent fix in the index: always fails
        join="",
        where=_ROW_WITHIN_SQL + (_NOT_INDEXED_SQL if indexed else ""),
    )
    sql = f"""SELECT * FROM ({unindexed}
    ORDER BY dead_sq, driver_id, vehicle_id
    LIMIT %(limit)s
) AS unindexed"""  # noqa: S608 (tables and constants only)
    if indexed:
        rows = _near_rows([found for found, _ in indexed], params, [s for _, s in indexed])
        near = _SKIP_REASON_ROWS_SQL.format(
            **shared,
            position_lat="near.lat",
            position_lng="near.lng",
            seen_fails="near.stale",
            join="JOIN near ON near.driver_id = d.id",
            where="",
        )
        sql = f"""WITH near (driver_id, lat, lng, stale) AS ({rows})
SELECT * FROM ({near}
) AS indexed WHERE reason <> ''
UNION ALL
{sql}"""  # noqa: S608 (tables and constants only)
    return sql, params


# Whether a candidate is still free, under their row's lock: their limit, whether a job
# card of theirs is open, and the jobs they hold whose busy span overlaps this job's
# (jobs_overlapping, as the trail counts them).
_DRIVER_STATE_SQL = f"""
SELECT
    d.max_jobs,
    EXISTS (
        SELECT 1 FROM {_OFFER} o
        WHERE o.driver_id = d.id AND o.status = {_sql_literal(OfferStatus.OPEN)}
    ) AS card_pending,
    (
        SELECT COUNT(*) FROM {_OFFER} h
        WHERE h.driver_id = d.id
            AND h.status = {_sql_literal(OfferStatus.ACCEPTED)}
            AND h.released_at IS NULL
            {{overlapping}}
    ) AS held_jobs
FROM {_DRIVER} d
WHERE d.id = %(driver_id)s
{{lock}}"""  # noqa: S608 (tables and constants only; every value is a parameter)


def driver_lock_if_free(driver_id: int, job: JobRequirements) -> bool:
    """Lock the driver's row and tell whether they may take ``job``: below their limit of
    jobs overlapping it, with no job card open. False when another transaction holds the
    row (SKIP LOCKED: a driver another dispatch step is deciding about counts as taken)."""
    ops = connection.ops
    params: dict = {"driver_id": driver_id}
    if job.busy_from is not None:
        params["busy_from"] = ops.adapt_datetimefield_value(job.busy_from)
        params["busy_until"] = ops.adapt_datetimefield_value(job.busy_until)
    sql = _DRIVER_STATE_SQL.format(
        overlapping=_OVERLAPPING_SQL if job.busy_from is not None else "",
        lock=(
            "FOR NO KEY UPDATE SKIP LOCKED"
            if connection.features.has_select_for_update_skip_locked
            else ""
        ),
    )
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        state = cursor.fetchone()
    if state is None:
        return False
    max_jobs, card_pending, load = state
    return load < max_jobs and not card_pending
