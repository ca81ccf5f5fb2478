"""What a bearer token presented at /mcp allows: one client, one passenger, some scopes.

Tokens are django-oauth-toolkit access tokens, stored hashed (RFC 9700), looked up by
their SHA-256 checksum. A token counts only when it was issued for the MCP resource the
client is talking to, ``{origin}/mcp`` (RFC 8707 ``resource``; the Host is one the site
serves): a token for another resource, or for none, is refused as if it did not exist. The REST API never accepts these tokens (its bearer values are API
keys), so a token works at /mcp and nowhere else.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from django.conf import settings
from django.utils import timezone
from oauth2_provider.models import get_access_token_model

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
    )
