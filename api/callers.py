"""Who is calling: the presented API key (any of the three headers) or the client IP."""

from __future__ import annotations

from django.conf import settings
from django.http import HttpRequest

from core.callers import Caller

# Contract 1.2: a key may come in any of these; the first one present wins.
KEY_HEADERS = ("HTTP_X_SERVICE_AI_KEY", "HTTP_X_API_KEY")


def presented_api_key(request: HttpRequest) -> str | None:
    """The raw API key the caller presented, or None when it presented none."""
    for header in KEY_HEADERS:
        value = request.META.get(header, "").strip()
        if value:
            return value
    authorization = request.META.get("HTTP_AUTHORIZATION", "")
    scheme, _, credentials = authorization.partition(" ")
    if scheme.lower() == "bearer" and credentials.strip():
        return credentials.strip()
    return None


def client_ip(request: HttpRequest) -> str:
    if settings.USE_X_FORWARDED_FOR:
        forwarded = request.META.get("HTTP_X_FORWARDED_FOR", "")
        if forwarded:
            return forwarded.split(",")[0].strip()
    return request.META.get("REMOTE_ADDR", "") or "unknown"


def signer_slug(request: HttpRequest) -> str | None:
    """The account slug named by an HMAC-signed request (x-partner or x-operator)."""
    for header in ("HTTP_X_PARTNER", "HTTP_X_OPERATOR"):
        value = request.META.get(header, "").strip()
        if value:
            return value
    return None


def caller_from_request(request, *, source: str = "api", agent: str = "") -> Caller:
    """The caller of an authenticated request (authentication sets ``account`` and
    ``account_key`` on the Django request; DRF's request passes them through)."""
    account = getattr(request, "account", None)
    account_key = getattr(request, "account_key", None)
    return Caller(
        ip=client_ip(request),
        account=account,
        key_id=account_key.pk if account_key is not None else None,
        source=source,
        agent=agent,
        path=request.path,
    )
