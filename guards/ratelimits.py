"""Rate limits on the Django cache via django-ratelimit (contract 1.4).

A policy, not an HTTP concern: services call :func:`limit_enforce` with a
:class:`core.callers.Caller`. Keyed calls are counted per key (an account may carry its own
limit), agents per client and passenger, anonymous calls per client IP. A hit raises
:class:`core.errors.LimitReached`, which the edge answers as 429 with ``Retry-After``.
With the cache unreachable, limits count per process, except those that guard a secret
(``FAIL_CLOSED_SCOPES``), which count in the database (contract 6).
"""

from __future__ import annotations

import datetime as dt
import hashlib
import logging
import re
import time

from django.conf import settings
from django.core.cache.backends.locmem import LocMemCache
from django.db import IntegrityError, transaction
from django.db.models import F
from django_ratelimit.core import get_usage
from django_redis.exceptions import ConnectionInterrupted
from redis.exceptions import RedisError

from core.callers import Caller
from core.errors import LimitReached
from guards.models import LimitCount
from guards.ratelimit_cache import counting_in_blocks

logger = logging.getLogger(__name__)


def rate_for(caller: Caller, scope: str) -> str:
    return caller.rate_limit_override or settings.RATELIMITS[scope]


_PERIOD_SECONDS = {"s": 1, "m": 60, "h": 3600, "d": 86400}


def rate_parse(rate: str) -> tuple[int, int]:
    """``"120/m"`` or ``"100/5m"`` (django-ratelimit's form) as (count, window seconds), for
    a store that counts a limit itself (drivers.positions' Redis script)."""
    count, period = rate.split("/", 1)
    multiple, unit = period[:-1] or "1", period[-1]
    return int(count), int(multiple) * _PERIOD_SECONDS[unit]


def counting_block(rate: str) -> int:
    """How many counts a process may reserve at once under ``rate``: a thousandth of the
    limit, at most ``RATELIMIT_COUNT_BLOCK_MAX``; 1 (exact counting) up to 1,999."""
    limit = int(rate.split("/", 1)[0])
    return max(1, min(settings.RATELIMIT_COUNT_BLOCK_MAX, limit // 1000))


def limit_enforce(
    caller: Caller,
    scope: str,
    *,
    value: str | None = None,
    rate: str | None = None,
    code: str = "rate_limited",
    detail: str = "",
) -> None:
    """Count one request of ``caller`` against ``scope``; LimitReached when over the limit.

    ``value`` overrides what is counted (for example a passenger email); by default it is
    the caller (``Caller.limit_key``).
    """
    if not settings.RATELIMIT_ENABLE:
        return
    rate = rate or rate_for(caller, scope)
    counted = value if value is not None else caller.limit_key
    try:
        with counting_in_blocks(counting_block(rate)):
            # django-ratelimit reads nothing from the request when the key is a callable.
            usage = get_usage(
                None,
                group=f"dtd:{scope}",
                key=lambda _group, _request: counted,
                rate=rate,
                increment=True,
            )
    except CACHE_DOWN as exc:
        if scope in FAIL_CLOSED_SCOPES:
            usage = _database_usage(scope, counted, rate, exc, increment=True)
        else:
            usage = _process_usage(scope, counted, rate, exc)
    if usage is not None and usage["should_limit"]:
        raise LimitReached(usage["time_left"], code=code, detail=detail)


def limit_spent_refuse(
    scope: str, *, value: str, code: str = "rate_limited", detail: str = ""
) -> None:
    """Refuse, without counting, once ``value`` has used all of ``scope``'s allowance in
    the current window: for allowances that only failures spend (wrong pickup codes), so
    that after them even a right answer is refused and teaches a guesser nothing. With the
    cache unreachable, a scope in ``FAIL_CLOSED_SCOPES`` is read from the database, where
    :func:`limit_enforce` then counts it; any other is not refused here."""
    if not settings.RATELIMIT_ENABLE:
        return
    rate = settings.RATELIMITS[scope]
    try:
        usage = get_usage(
            None,
            group=f"dtd:{scope}",
            key=lambda _group, _request: value,
            rate=rate,
            increment=False,
        )
    except CACHE_DOWN as exc:
        if scope not in FAIL_CLOSED_SCOPES:
            return
        usage = _database_usage(scope, value, rate, exc, increment=False)
    if usage is not None and usage["count"] >= usage["limit"]:
        raise LimitReached(usage["time_left"], code=code, detail=detail)


# --- degraded: the shared cache is unreachable (contract 1.4, 6) ------------------------
#
# Quotes and bookings keep being served: each process counts on its own, in memory, over
# the same fixed windows, so a caller gets at most the limit per process until the cache
# is back. Limits that guard a secret (contract 6: the pickup code, passenger sign-in
# codes, tokens tried at the position ingest) never allow more for it: they count in the
# database (LimitCount) over the same windows, and a database that does not answer either
# is 503 (api.problems), never an allowance. Logged, at most once a minute per process.

CACHE_DOWN = (ConnectionInterrupted, RedisError, OSError)
FAIL_CLOSED_SCOPES = frozenset({"pickup_code", "sign_in_code", "sign_in_ip", "ingest_token"})
_process_counts = LocMemCache("dtd-ratelimit-degraded", {"OPTIONS": {"MAX_ENTRIES": 50_000}})
_last_warning = [-1e9]


def _cache_down_log(exc: Exception) -> None:
    now = time.monotonic()
    if now - _last_warning[0] >= 60:
        _last_warning[0] = now
        logger.warning(
            "rate limits: cache unreachable (%s: %s); counting per process, and in the "
            "database for limits that guard a secret, until it is back",
            type(exc).__name__,
            exc,
        )


def _window_end(period: int) -> int:
    """The end (Unix seconds) of the fixed window of ``period`` seconds we are in."""
    wall = int(time.time())
    return wall - wall % period + period


def _database_usage(
    scope: str, counted: str, rate: str, exc: Exception, *, increment: bool
) -> dict:
    """``get_usage``'s answer from LimitCount: one row per (scope, counted, window),
    incremented atomically (an UPDATE, or the INSERT that the unique constraint lets only
    one concurrent request make). Must run outside a transaction that a refusal rolls
    back, or the failure it counts is undone with it. Windows that have ended are
    deleted on the way."""
    _cache_down_log(exc)
    limit, period = _rate_parts(rate)
    window_end_ts = _window_end(period)
    window_end = dt.datetime.fromtimestamp(window_end_ts, tz=dt.UTC)
    digest = hashlib.sha256(counted.encode("utf-8", "surrogatepass")).hexdigest()
    row = LimitCount.objects.filter(scope=scope, counted=digest, window_end=window_end)
    with transaction.atomic():
        if increment and not row.update(count=F("count") + 1):
            try:
                with transaction.atomic():
                    LimitCount.objects.create(
                        scope=scope, counted=digest, window_end=window_end, count=1
                    )
            except IntegrityError:  # created by a concurrent request since our update
                row.update(count=F("count") + 1)
        count = row.values_list("count", flat=True).first() or 0
        LimitCount.objects.filter(window_end__lt=dt.datetime.now(tz=dt.UTC)).delete()
    return {
        "count": count,
        "limit": limit,
        "should_limit": count > limit,
        "time_left": window_end_ts - int(time.time()),
    }


def _process_usage(scope: str, counted: str, rate: str, exc: Exception) -> dict:
    _cache_down_log(exc)
    limit, period = _rate_parts(rate)
    wall = int(time.time())
    window_end = _window_end(period)
    key = f"{scope}:{counted}:{window_end}"
    if _process_counts.add(key, 1, period):
        count = 1
    else:
        try:
            count = _process_counts.incr(key)
        except ValueError:  # expired between the two calls
            _process_counts.add(key, 1, period)
            count = 1
    return {
        "count": count,
        "limit": limit,
        "should_limit": count > limit,
        "time_left": window_end - wall,
    }


def _rate_parts(rate: str) -> tuple[int, int]:
    """(count, period seconds) of a django-ratelimit rate such as "30/h" or "100/5m"."""
    count, multiplier, unit = RATE_FORMAT.fullmatch(rate).groups()
    return int(count), int(multiplier or 1) * PERIOD_SECONDS[unit.lower()]


RATE_FORMAT = re.compile(r"(\d+)/(\d*)([smhd])", re.IGNORECASE)
PERIOD_SECONDS = {"s": 1, "m": 60, "h": 3600, "d": 86400}
