"""What a bearer token presented at /mcp allows: one client, one passenger, some scopes.

Tokens are django-oauth-toolkit access tokens, stored hashed (RFC 9700), looked up by
their SHA-256 checksum. A token counts only when it was issued for the MCP resource the
client is talking to, ``{origin}/mcp`` (RFC 8707 ``resource``; the Host is one the site
serves): a token for another resource, or for none, is refused as if it did not exist. The REST API never accepts these tokens (its bearer values are API
keys), so a token works at /mcp and nowhere else.

A verified grant is remembered per process for ``API_KEY_CACHE_SECONDS``, exactly as a
verified API key is (``core.credential_cache``): the gate then answers a known token
without a thread or a query, as the REST API answers a known key (issue 41). The token's
expiry is checked on every call. A token, client or passenger saved or deleted in this
process (a revocation at ``/agents/``, ``/oauth/revoke/``) empties the memory at once;
other processes stop taking a revoked token within ``API_KEY_CACHE_SECONDS``, as for a
revoked API key. An unknown or refused token is never remembered.
"""

from __future__ import annotations

import datetime as dt
import hashlib
from dataclasses import dataclass

from django.conf import settings
from django.db.models.signals import post_delete, post_save
from django.dispatch import receiver
from django.utils import timezone
from oauth2_provider.models import get_access_token_model, get_application_model

from core.credential_cache import CredentialCache

# The scope each tool needs (contract 7). A token needs one of these to reach /mcp at all.
TOOL_SCOPES = {
    "get_service_info": "quotes",
    "estimate_fare": "quotes",
    "find_places": "quotes",
    "start_booking": "bookings",
    "get_booking": "bookings",
    "cancel_booking": "bookings",
}
MCP_SCOPES = frozenset(TOOL_SCOPES.values())


@dataclass(frozen=True)
class AgentGrant:
    """An authorized agent: the OAuth client acting for a signed-in passenger."""

    client_id: str
    client_name: str
    passenger_email: str
    scopes: frozenset[str]
    # The token's own end: a remembered grant is used only before it.
    expires_at: dt.datetime | None = None


def _origin(url: str) -> str:
    scheme, _, rest = url.partition("://")
    return f"{scheme.lower()}://{rest.split('/', 1)[0].lower()}"


def connected_origins() -> list[str]:
    """The origins that serve the API (contract 1: every connected domain), SITE_URL first."""
    origins = [_origin(settings.SITE_URL)]
    for domain in settings.CONNECTED_DOMAINS:
        if _origin(domain) not in origins:
            origins.append(_origin(domain))
    return origins


def connected_origin_for(origin: str) -> str:
    """The connected domain a request reached (``origin``, from its scheme and Host) when
    it is one, else SITE_URL's: what the OAuth metadata names, so that no Host header,
    however it got past ALLOWED_HOSTS, puts its own name into it (issue 35)."""
    origins = connected_origins()
    return _origin(origin) if _origin(origin) in origins else origins[0]


def mcp_resource(origin: str) -> str:
    """The RFC 8707 resource identifier of the MCP server as reached at ``origin`` (a
    scheme and a host the site serves): the URL an MCP client connects to."""
    return f"{_origin(origin)}{settings.MCP_PATH}"


def agent_grant_for_token(raw_token: str, *, resource: str) -> AgentGrant | None:
    """The grant behind a bearer token presented to ``resource``, or None when it is
    unknown, expired, issued for another resource (or none), carries none of the MCP
    scopes, or has no passenger."""
    checksum = hashlib.sha256(raw_token.encode("utf-8")).hexdigest()
    token = (
        get_access_token_model()
        .objects.select_related("application", "user")
        .filter(token_checksum=checksum)
        .first()
    )
    if token is None or token.application is None or token.user is None:
        return None
    if token.expires <= timezone.now():
        return None
    if resource not in {str(r).rstrip("/") for r in (token.resource or [])}:
        return None
    scopes = frozenset(token.scope.split()) & MCP_SCOPES
    if not scopes:
        return None
    application = token.application
    return AgentGrant(
        client_id=application.client_id,
        # Recorded as the booking's agent (Booking.agent holds 100 characters).
        client_name=(application.name or application.client_id)[:100],
        passenger_email=token.user.email.lower(),
        scopes=scopes,
        expires_at=token.expires,
    )


# Grants verified in this process, per token and resource (core.credential_cache).
_verified_grants: CredentialCache[AgentGrant] = CredentialCache(max_entries=10_000)


@receiver([post_save, post_delete], sender=get_access_token_model())
@receiver([post_save, post_delete], sender=get_application_model())
@receiver([post_save, post_delete], sender=settings.AUTH_USER_MODEL)
def agent_grants_forget(**kwargs) -> None:
    _verified_grants.clear()


class GrantNotRemembered(Exception):
    """This process has not verified the token lately: the database must be read."""


def _not_remembered() -> AgentGrant:
    raise GrantNotRemembered


def _remembered_key(raw_token: str, resource: str) -> str:
    # A grant holds for one resource only: the pair is what is remembered.
    return f"{resource} {raw_token}"


def agent_grant_remembered(raw_token: str, *, resource: str) -> AgentGrant:
    """The grant this process verified for the token at ``resource`` within
    ``API_KEY_CACHE_SECONDS`` and still before the token's expiry, without touching the
    database (safe in the event loop); raises GrantNotRemembered otherwise."""
    grant = _verified_grants.get(_remembered_key(raw_token, resource), _not_remembered)
    if grant.expires_at is None or grant.expires_at <= timezone.now():
        raise GrantNotRemembered
    return grant


def agent_grant_verify(raw_token: str, *, resource: str) -> AgentGrant | None:
    """:func:`agent_grant_for_token`, remembered when it grants (reads the database on a
    miss: call it from a worker thread)."""
    try:
        return agent_grant_remembered(raw_token, resource=resource)
    except GrantNotRemembered:
        pass
    # Not remembered, or remembered past the token's end: read again (whatever is
    # remembered is forgotten first, so a refusal leaves nothing behind).
    try:
        return _verified_grants.get(
            _remembered_key(raw_token, resource),
            lambda: _grant_or_not_remembered(raw_token, resource),
            still_good=lambda _digest: False,
        )
    except GrantNotRemembered:
        return None


def _grant_or_not_remembered(raw_token: str, resource: str) -> AgentGrant:
    grant = agent_grant_for_token(raw_token, resource=resource)
    if grant is None:
        raise GrantNotRemembered
    return grant
