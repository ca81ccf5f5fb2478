"""Rate limits on the Django cache via django-ratelimit (contract 1.4).

Keyed calls are counted per key (an account may carry its own limit), anonymous calls per
client IP. A hit raises :class:`core.errors.LimitReached`, which the edge answers as 429 with ``Retry-After``.
"""

from __future__ import annotations

from django.conf import settings
from django_ratelimit.core import get_usage

from api.callers import client_ip
from api.ratelimit_cache import counting_in_blocks
from core.errors import LimitReached


def caller_key(request) -> str:
    account_key = getattr(request, "account_key", None)
    if account_key is not None:
        return f"key:{account_key.pk}"
    account = getattr(request, "account", None)
    if account is not None:
        return f"account:{account.pk}"
    return f"ip:{client_ip(request)}"


def rate_for(request, scope: str) -> str:
    account = getattr(request, "account", None)
    override = getattr(account, "rate_limit", "") if account is not None else ""
    return override or settings.RATELIMITS[scope]


def counting_block(rate: str) -> int:
    """How many counts a process may reserve at once under ``rate``: a thousandth of the
    limit, at most ``RATELIMIT_COUNT_BLOCK_MAX``; 1 (exact counting) up to 1,999."""
    limit = int(rate.split("/", 1)[0])
    return max(1, min(settings.RATELIMIT_COUNT_BLOCK_MAX, limit // 1000))


def ratelimit_enforce(
    request,
    scope: str,
    *,
    value: str | None = None,
    rate: str | None = None,
    code: str = "rate_limited",
    detail: str = "",
) -> None:
    """Count this request against ``scope`` and raise LimitReached when over the limit.

    ``value`` overrides what is counted (for example a passenger email); by default it is
    the caller: the presented key, else the client IP.
    """
    if not settings.RATELIMIT_ENABLE:
        return
    rate = rate or rate_for(request, scope)
    with counting_in_blocks(counting_block(rate)):
        usage = get_usage(
            request,
            group=f"dtd:{scope}",
            key=lambda _group, _request: value if value is not None else caller_key(request),
            rate=rate,
            increment=True,
        )
    if usage is not None and usage["should_limit"]:
        raise LimitReached(usage["time_left"], code=code, detail=detail)
