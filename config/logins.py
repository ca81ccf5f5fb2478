"""Login throttling (contract 6): which logins django-axes watches and how a locked-out
client is answered.

Watched: the back office (admin), the driver and operator pages, and the driver app's
``POST /api/public/v1/driver/login``. Each counts failures per username and client
address together (``AXES_LOCKOUT_PARAMETERS``; the address is ``api.callers.client_ip``,
which believes forwarded headers only from ``TRUSTED_PROXIES``); after
``AXES_FAILURE_LIMIT`` failures in a row that username is locked out at that address for
``AXES_COOLOFF_TIME`` hours, even with the right password. Failures are counted in the
database (``AXES_HANDLER``), never in the cache, so the throttle holds while Redis is down
(contract 6: limits that guard a secret never allow when their store is down). The answer is 429 with ``Retry-After``: problem JSON
(``rate_limited``) on the API, a page with a lock-out message elsewhere.
"""

from __future__ import annotations

from django.conf import settings
from django.shortcuts import render
from django.urls import reverse

from api.problems import RateLimited, problem_response

# The login doors axes watches (URL names); every other authenticate() call is left alone.
WATCHED_LOGINS = ("admin:login", "driver-login", "operator-login", "driver-login-api")


def login_not_watched(request, credentials=None) -> bool:
    """AXES_WHITELIST_CALLABLE: true for any request that is not one of WATCHED_LOGINS."""
    return request.path not in {reverse(name) for name in WATCHED_LOGINS}


def cool_off_seconds() -> int:
    return max(1, round(float(settings.AXES_COOLOFF_TIME) * 3600))


def login_lockout_response(request, original_response=None, credentials=None):
    """AXES_LOCKOUT_CALLABLE: 429 with Retry-After, as problem JSON under /api/ and as a
    page with the lock-out message elsewhere. (axes calls it with two or three arguments
    depending on the server mode; only the request is read.)"""
    retry_after = cool_off_seconds()
    minutes = -(-retry_after // 60)
    detail = f"Too many failed logins: try again in {minutes} minutes, or reset your password."
    if request.path.startswith("/api/"):
        return problem_response(RateLimited(retry_after, detail=detail))
    response = render(
        request, "login_locked.html", {"detail": detail, "minutes": minutes}, status=429
    )
    response["Retry-After"] = str(retry_after)
    return response
