"""Who is calling: the presented API key (any of the three headers) or the client IP."""

from __future__ import annotations

import functools
import ipaddress
from collections.abc import Mapping

from django.conf import settings
from django.http import HttpRequest

from api.principals import request_account_principal
from core.callers import Caller
from core.logs import account_bind

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
    """The address of the client of ``request``: :func:`client_address` of its META."""
    return client_address(request.META)


def client_address(meta: Mapping[str, str]) -> str:
    """The address of the client, as far as the proxies in front of us can be trusted, from
    a WSGI environ or a request's META (the ingest has no Django request).

    Behind a reverse proxy REMOTE_ADDR is the proxy, so every anonymous caller would share
    one rate-limit bucket (issue 13). ``X-Forwarded-For`` is read from the right: each
    proxy appends the address it received the request from, so only the entries added by
    our own proxies are believed. A proxy is ours when it is one of the last
    ``TRUSTED_PROXY_COUNT`` hops, or when its address is in ``TRUSTED_PROXIES`` (CIDRs).
    Entries further left were written by the client and may be forged.
    """
    remote = meta.get("REMOTE_ADDR", "") or "unknown"
    count = settings.TRUSTED_PROXY_COUNT
    networks = _trusted_networks(tuple(settings.TRUSTED_PROXIES))
    if not count and not networks:
        return remote
    forwarded = meta.get("HTTP_X_FORWARDED_FOR", "")
    hops = [remote] + [h.strip() for h in reversed(forwarded.split(",")) if h.strip()]
    # hops[0] is the peer that connected to us, hops[1] the one before it, and so on.
    index = 0
    while index + 1 < len(hops) and (index < count or _is_in(hops[index], networks)):
        index += 1
    return hops[index][:64]


@functools.lru_cache(maxsize=4)
def _trusted_networks(cidrs: tuple[str, ...]) -> tuple:
    return tuple(ipaddress.ip_network(cidr.strip(), strict=False) for cidr in cidrs if cidr)


def _is_in(address: str, networks: tuple) -> bool:
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return False
    return any(ip in network for network in networks)


def signer_slug(request: HttpRequest) -> str | None:
    """The account slug named by an HMAC-signed request (x-partner or x-operator)."""
    for header in ("HTTP_X_PARTNER", "HTTP_X_OPERATOR"):
        value = request.META.get(header, "").strip()
        if value:
            return value
    return None


def caller_from_request(request, *, source: str = "api", agent: str = "") -> Caller:
    """The caller of a request: the account of its ``api.principals.AccountPrincipal``
    (DRF's ``request.auth``) when an account authenticated, else anonymous by IP."""
    principal = request_account_principal(request)
    account = principal.account if principal is not None else None
    key = principal.key if principal is not None else None
    account_bind(account)  # the caller's account is in every further log line
    return Caller(
        ip=client_ip(request),
        account=account,
        key_id=key.pk if key is not None else None,
        source=source,
        agent=agent,
        path=request.path,
    )
