"""The Redis backend of ``drivers.positions``: live positions out of the system of record.

Keys (``POSITIONS_KEY_PREFIX``, default ``pos:``):

- ``pos:d:<driver>``: a hash, the driver's latest report (``lat``, ``lng``, ``h`` heading,
  ``at`` Unix time, ``spd``, ``acc``), where the index holds them (``ia`` area, ``ic``
  classes, ``iat`` time) and the last trail slot sampled (``ss``). Expires
  ``POSITIONS_TTL_SECONDS`` after the last write.
- ``pos:g:<area>:<class>``: a GEO set of the drivers in a grid cell of
  ``POSITIONS_AREA_DEGREES`` with a vehicle of that class, and ``pos:s:<area>:<class>``,
  the same members scored by the time of their fix. Both expire with the last write; every
  write also drops a few members older than the expiry, so a driver whose app went quiet
  leaves the index within ``POSITIONS_TTL_SECONDS`` even in a busy cell. That is longer than
  the matcher trusts a fix (``DISPATCH_DRIVER_SEEN_WITHIN_SECONDS``): freshness is judged by
  the fix's time (its score), as the database backend judges ``last_seen_at``, never by expiry.

A report is one script call (``EVALSHA``): atomic per driver, one round trip, however many
fixes it carries, the driver's report limit counted in it (``pos:l:<driver>``, a counter
that expires with its window). A search is one more: every cell and class the circle touches, nearest
first, fresh only. The scripts name the cell keys they derive from the driver's hash
themselves, so one Redis (or one per region, by ``POSITIONS_REDIS_URL``) holds them: they
are not written for Redis Cluster.
"""

from __future__ import annotations

import datetime as dt
import math
from collections.abc import Sequence
from datetime import UTC

import redis
from django.conf import settings

from core.errors import LimitReached
from drivers.positions import Fix, NearDriver, PositionsUnavailable, Recorded, ReportLimit
from drivers.positions.trail import trail_samples_pick, trail_samples_write
from pricing.vehicles import VEHICLE_CLASSES

_RECORD = """
local dk, p, id = KEYS[1], ARGV[1], ARGV[2]
local at, ttl, now, mode = tonumber(ARGV[6]), tonumber(ARGV[11]), tonumber(ARGV[12]), ARGV[14]
local limit, window = tonumber(ARGV[15]), tonumber(ARGV[16])
if limit then
  local lk = p .. 'l:' .. id
  local n = redis.call('INCR', lk)
  if n == 1 then redis.call('EXPIRE', lk, window) end
  if n > limit then
    local left = redis.call('TTL', lk)
    if left < 0 then
      redis.call('EXPIRE', lk, window)
      left = window
    end
    return {'limited', left}
  end
end
local held = redis.call('HMGET', dk, 'at', 'ia', 'ic', 'ss', 'iat')
local function split(s)
  local t = {}
  if s then for c in string.gmatch(s, '[^,]+') do t[#t + 1] = c end end
  return t
end
local function unindex()
  if held[2] then
    for _, c in ipairs(split(held[3])) do
      redis.call('ZREM', p .. 'g:' .. held[2] .. ':' .. c, id)
      redis.call('ZREM', p .. 's:' .. held[2] .. ':' .. c, id)
    end
    redis.call('HDEL', dk, 'ia', 'ic', 'iat')
  end
end
if mode == 'leave' then
  unindex()
  return {'-1', 0}
end
local newer = 1
if mode == 'report' then
  if held[1] and tonumber(held[1]) > at then
    newer = 0
  else
    redis.call('HSET', dk, 'lat', ARGV[3], 'lng', ARGV[4], 'h', ARGV[5], 'at', ARGV[6],
      'spd', ARGV[7], 'acc', ARGV[8])
  end
end
local iat = held[5] and tonumber(held[5])
if newer == 1 and (not iat or iat <= at) and at >= now - ttl then
  local area, classes = ARGV[9], ARGV[10]
  if held[2] and (held[2] ~= area or held[3] ~= classes) then unindex() end
  for _, c in ipairs(split(classes)) do
    local g, s = p .. 'g:' .. area .. ':' .. c, p .. 's:' .. area .. ':' .. c
    redis.call('GEOADD', g, ARGV[4], ARGV[3], id)
    redis.call('ZADD', s, at, id)
    local stale = redis.call('ZRANGEBYSCORE', s, '-inf', '(' .. (now - ttl), 'LIMIT', 0, 8)
    if #stale > 0 then
      redis.call('ZREM', g, unpack(stale))
      redis.call('ZREM', s, unpack(stale))
    end
    redis.call('EXPIRE', g, ttl)
    redis.call('EXPIRE', s, ttl)
  end
  redis.call('HSET', dk, 'ia', area, 'ic', classes, 'iat', ARGV[6])
end
redis.call('EXPIRE', dk, ttl)
local prev = held[4] or '-1'
if mode == 'report' and tonumber(ARGV[13]) > tonumber(prev) then
  redis.call('HSET', dk, 'ss', ARGV[13])
end
return {prev, newer}
"""

# KEYS: n GEO keys, then their n time keys. ARGV: lng, lat, radius (m), count, seen after
# ('' for any). Returns a flag (1 when some cell had more than ``count``), then
# member, distance (m), lng, lat, time for each fresh member found.
_SEARCH = """
local n = #KEYS / 2
local after = ARGV[5] ~= '' and tonumber(ARGV[5]) or nil
local count = tonumber(ARGV[4])
local out, more = {0}, 0
for i = 1, n do
  local found = redis.call('GEOSEARCH', KEYS[i], 'FROMLONLAT', ARGV[1], ARGV[2],
    'BYRADIUS', ARGV[3], 'm', 'ASC', 'COUNT', count, 'WITHDIST', 'WITHCOORD')
  if #found > 0 then
    if #found >= count then out[1] = 1 end
    local members = {}
    for j, row in ipairs(found) do members[j] = row[1] end
    local seen = redis.call('ZMSCORE', KEYS[n + i], unpack(members))
    for j, row in ipairs(found) do
      local t = seen[j]
      if t and (not after or tonumber(t) >= after) then
        out[#out + 1] = row[1]
        out[#out + 1] = row[2]
        out[#out + 1] = row[3][1]
        out[#out + 1] = row[3][2]
        out[#out + 1] = t
      end
    end
  end
end
return out
"""

_LATEST_FIELDS = ("lat", "lng", "h", "at", "spd", "acc")
_ALL_CLASSES = tuple(vc.code for vc in VEHICLE_CLASSES)
# Searches that found more than asked in some cell and too few fresh ones ask again for
# this many times more, up to the cap.
_GROWTH, _COUNT_CAP = 4, 4096


def _number(value: str) -> str:
    return repr(float(value))


def _optional(value: float | None) -> str:
    return "" if value is None else repr(float(value))


def _float_or_none(value: bytes | None) -> float | None:
    return None if value in (None, b"") else float(value)


def area_of(lat: float, lng: float) -> str:
    """The grid cell holding a point: ``<row>:<column>`` in steps of POSITIONS_AREA_DEGREES."""
    step = float(settings.POSITIONS_AREA_DEGREES)
    return f"{math.floor(lat / step)}:{math.floor(lng / step)}"


def areas_around(lat: float, lng: float, radius_km: float) -> list[str]:
    """Every grid cell a circle of ``radius_km`` around the point touches (its box's)."""
    step = float(settings.POSITIONS_AREA_DEGREES)
    dlat = radius_km / 111.2
    dlng = radius_km / (111.2 * max(0.01, math.cos(math.radians(lat))))
    rows = range(math.floor((lat - dlat) / step), math.floor((lat + dlat) / step) + 1)
    columns = range(math.floor((lng - dlng) / step), math.floor((lng + dlng) / step) + 1)
    return [f"{row}:{column}" for row in rows for column in columns]


class RedisPositions:
    name = "redis"

    def __init__(self) -> None:
        self.client = redis.Redis.from_url(
            settings.POSITIONS_REDIS_URL,
            socket_connect_timeout=settings.REDIS_CACHE_TIMEOUTS["SOCKET_CONNECT_TIMEOUT"],
            socket_timeout=settings.REDIS_CACHE_TIMEOUTS["SOCKET_TIMEOUT"],
        )
        self.prefix = settings.POSITIONS_KEY_PREFIX
        self._record = self.client.register_script(_RECORD)
        self._search = self.client.register_script(_SEARCH)

    def _driver_key(self, driver_id: int) -> str:
        return f"{self.prefix}d:{driver_id}"

    def _call(self, script, keys: list[str], args: list):
        try:
            return script(keys=keys, args=args)
        except redis.RedisError as exc:
            raise PositionsUnavailable(type(exc).__name__) from exc

    def _write(
        self,
        *,
        driver_id: int,
        fix: Fix,
        classes: Sequence[str],
        mode: str,
        max_slot: int = -1,
        limit: ReportLimit | None = None,
    ) -> tuple[int, bool]:
        ttl = int(settings.POSITIONS_TTL_SECONDS)
        now = dt.datetime.now(UTC).timestamp()
        prev, newer = self._call(
            self._record,
            [self._driver_key(driver_id)],
            [
                self.prefix,
                driver_id,
                _number(fix.lat),
                _number(fix.lng),
                _optional(fix.heading),
                repr(fix.at.timestamp()),
                _optional(fix.speed),
                _optional(fix.accuracy),
                area_of(fix.lat, fix.lng),
                ",".join(sorted(set(classes))),
                ttl,
                repr(now),
                max_slot,
                mode,
                limit.count if limit else "",
                limit.seconds if limit else "",
            ],
        )
        if prev == b"limited":
            raise LimitReached(int(newer))
        return int(prev), bool(newer)

    def record(
        self,
        *,
        driver_id: int,
        fixes: Sequence[Fix],
        classes: Sequence[str],
        limit: ReportLimit | None = None,
    ) -> Recorded:
        latest = fixes[-1]
        candidates = trail_samples_pick(fixes, after_slot=None)
        max_slot = max((slot for slot, _ in candidates), default=-1)
        prev, newer = self._write(
            driver_id=driver_id,
            fix=latest,
            classes=classes,
            mode="report",
            max_slot=max_slot,
            limit=limit,
        )
        sampled = [(slot, fix) for slot, fix in candidates if slot > prev]
        if sampled:
            trail_samples_write(driver_id=driver_id, samples=sampled)
        return Recorded(latest=latest if newer else None, sampled=tuple(f for _, f in sampled))

    def availability(
        self,
        *,
        driver_id: int,
        online: bool,
        lat: float | None,
        lng: float | None,
        at: dt.datetime,
        classes: Sequence[str],
    ) -> None:
        if not online:
            self._write(driver_id=driver_id, fix=Fix(0.0, 0.0, at), classes=(), mode="leave")
        elif lat is not None and lng is not None:
            self._write(driver_id=driver_id, fix=Fix(lat, lng, at), classes=classes, mode="place")

    def place_many(self, placements: Sequence[tuple[int, Fix, Sequence[str]]]) -> None:
        """Index many online drivers at once, (driver id, fix, classes) each, pipelined:
        loading a benchmark's drivers, or rebuilding the index from the drivers' rows."""
        ttl, now = int(settings.POSITIONS_TTL_SECONDS), dt.datetime.now(UTC).timestamp()
        pipe = self.client.pipeline(transaction=False)
        for driver_id, fix, classes in placements:
            self._record(
                keys=[self._driver_key(driver_id)],
                args=[
                    self.prefix,
                    driver_id,
                    _number(fix.lat),
                    _number(fix.lng),
                    "",
                    repr(fix.at.timestamp()),
                    "",
                    "",
                    area_of(fix.lat, fix.lng),
                    ",".join(sorted(set(classes))),
                    ttl,
                    repr(now),
                    -1,
                    "place",
                ],  # fmt: skip
                client=pipe,
            )
        pipe.execute()

    def latest_many(self, driver_ids: Sequence[int]) -> dict[int, Fix]:
        pipe = self.client.pipeline(transaction=False)
        for driver_id in driver_ids:
            pipe.hmget(self._driver_key(driver_id), _LATEST_FIELDS)
        try:
            rows = pipe.execute()
        except redis.RedisError as exc:
            raise PositionsUnavailable(type(exc).__name__) from exc
        found = {}
        for driver_id, (lat, lng, heading, at, speed, accuracy) in zip(
            driver_ids, rows, strict=True
        ):
            if lat is None or at is None:
                continue
            found[driver_id] = Fix(
                lat=float(lat),
                lng=float(lng),
                at=dt.datetime.fromtimestamp(float(at), tz=UTC),
                heading=_float_or_none(heading),
                speed=_float_or_none(speed),
                accuracy=_float_or_none(accuracy),
            )
        return found

    def near(
        self,
        *,
        lat: float,
        lng: float,
        radius_km: float,
        classes: Sequence[str] | None,
        seen_after: dt.datetime | None,
        count: int,
    ) -> list[NearDriver]:
        classes = _ALL_CLASSES if classes is None else classes
        cells = [(area, c) for area in areas_around(lat, lng, radius_km) for c in classes]
        keys = [f"{self.prefix}g:{area}:{c}" for area, c in cells]
        keys += [f"{self.prefix}s:{area}:{c}" for area, c in cells]
        after = "" if seen_after is None else repr(seen_after.timestamp())
        asked = count
        while True:
            reply = self._call(
                self._search, keys, [repr(lng), repr(lat), repr(radius_km * 1000), asked, after]
            )
            more, rows = reply[0], reply[1:]
            nearest: dict[int, NearDriver] = {}
            for i in range(0, len(rows), 5):
                member, metres, found_lng, found_lat, seen = rows[i : i + 5]
                driver_id = int(member)
                if driver_id in nearest:
                    continue  # the same driver under another class: same position
                nearest[driver_id] = NearDriver(
                    driver_id=driver_id,
                    lat=float(found_lat),
                    lng=float(found_lng),
                    seen_at=dt.datetime.fromtimestamp(float(seen), tz=UTC),
                    distance_km=float(metres) / 1000,
                )
            found = sorted(nearest.values(), key=lambda n: (n.distance_km, n.driver_id))
            if len(found) >= count or not more or asked >= _COUNT_CAP:
                return found[:count]
            asked = min(asked * _GROWTH, _COUNT_CAP)

    def flush(self) -> None:
        """Forget every live position (tests and benchmarks)."""
        for key in self.client.scan_iter(f"{self.prefix}*", count=1000):
            self.client.delete(key)
