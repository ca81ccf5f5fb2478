"""The door of /mcp: host and origin checks, the bearer token, and the scope a tool needs.

An ASGI middleware in front of the SDK's Streamable HTTP handler. Everything it refuses
is RFC 9457 problem JSON like the rest of the API (contract 1.1, 7):

- a Host outside ``ALLOWED_HOSTS``: 400; an ``Origin`` that is not a connected domain
  (DNS rebinding, cross-site pages): 403; anything but a JSON POST: 405 or 415 (the
  server is stateless: no GET stream, no session to DELETE);
- no token, or one that is unknown, expired or issued for another resource: 401 with
  ``WWW-Authenticate: Bearer resource_metadata="..."`` (RFC 9728), so a client can find
  the authorization server;
- a control character in the query string or in a string of the JSON-RPC body (tab, CR
  and LF aside): 400 ``invalid_input`` (``api.control_characters``, contract 1.1);
- a body the API's JSON parser refuses (nesting deeper than 32 levels, ``NaN``, numbers
  too long): 400 ``invalid_body``;
- a ``tools/call`` of a tool whose scope the token lacks: 403 ``insufficient_scope``
  with the scope to ask for (the MCP client re-authorizes with it); of a tool missing
  from ``TOOL_SCOPES``: 403 ``permission_denied`` (deny by default).

The verified grant travels to the tools in the ASGI scope (``scope["agent_grant"]``).
"""

from __future__ import annotations

import json

from asgiref.sync import sync_to_async
from django.conf import settings
from django.db import close_old_connections
from django.http.request import split_domain_port, validate_host

from agents.grants import (
    TOOL_SCOPES,
    GrantNotRemembered,
    agent_grant_remembered,
    agent_grant_verify,
    connected_origin_for,
    connected_origins,
    mcp_resource,
)
from api.control_characters import (
    control_character_place_in,
    control_characters_problem,
    json_has_control_characters,
)
from api.parsers import json_body_parse
from api.problems import PROBLEM_CONTENT_TYPE, Problem

MAX_BODY_BYTES = 1024 * 1024


def _header(scope, name: bytes) -> str:
    for key, value in scope["headers"]:
        if key == name:
            return value.decode("latin-1")
    return ""


def _origin_of(scope) -> str:
    return f"{scope.get('scheme', 'http')}://{_header(scope, b'host')}".lower()


def resource_metadata_url(scope) -> str:
    """Where the 401's ``WWW-Authenticate`` sends a client: the metadata at the connected
    domain it reached, else at SITE_URL (never a name from the Host header alone)."""
    origin = connected_origin_for(_origin_of(scope))
    return f"{origin}/.well-known/oauth-protected-resource{settings.MCP_PATH}"


async def _send_problem(send, problem: Problem, headers: dict[str, str] | None = None) -> None:
    body = json.dumps(problem.as_body()).encode()
    raw_headers = [
        (b"content-type", PROBLEM_CONTENT_TYPE.encode()),
        (b"content-length", str(len(body)).encode()),
    ]
    raw_headers += [(k.lower().encode(), v.encode()) for k, v in (headers or {}).items()]
    await send({"type": "http.response.start", "status": problem.status, "headers": raw_headers})
    await send({"type": "http.response.body", "body": body})


def _grant_lookup(raw_token: str, resource: str):
    close_old_connections()
    try:
        return agent_grant_verify(raw_token, resource=resource)
    finally:
        close_old_connections()


async def _grant_for(raw_token: str, resource: str):
    """The grant behind the token: from this process's memory in the event loop when it
    verified the token lately (as the REST API remembers its keys), else read in a worker
    thread."""
    try:
        return agent_grant_remembered(raw_token, resource=resource)
    except GrantNotRemembered:
        return await sync_to_async(_grant_lookup, thread_sensitive=False)(raw_token, resource)


async def _read_body(receive) -> bytes | None:
    """The whole request body, or None when it is larger than MAX_BODY_BYTES."""
    chunks, size = [], 0
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            break
        chunk = message.get("body", b"")
        size += len(chunk)
        if size > MAX_BODY_BYTES:
            return None
        chunks.append(chunk)
        if not message.get("more_body", False):
            break
    return b"".join(chunks)


def _tools_called(messages) -> list[str]:
    """Names of the tools a JSON-RPC message (or batch) calls."""
    if not isinstance(messages, list):
        messages = [messages]
    names = []
    for message in messages:
        if isinstance(message, dict) and message.get("method") == "tools/call":
            params = message.get("params")
            if isinstance(params, dict) and isinstance(params.get("name"), str):
                names.append(params["name"])
    return names


class MCPGate:
    def __init__(self, app):
        self.app = app

    async def __call__(self, scope, receive, send):
        host, _port = split_domain_port(_header(scope, b"host"))
        if not host or not validate_host(host, settings.ALLOWED_HOSTS):
            await _send_problem(
                send, Problem(400, "invalid_input", "This host is not served here.")
            )
            return
        origin = _header(scope, b"origin").lower().rstrip("/")
        if origin and origin not in connected_origins() and origin != _origin_of(scope):
            await _send_problem(
                send,
                Problem(403, "permission_denied", "Requests from this origin are not accepted."),
            )
            return

        where = control_character_place_in(
            path=scope.get("path", ""),
            query_string=scope.get("query_string", b"").decode("latin-1"),
            content_type="",
            body=b"",
        )
        if where:  # text is text (contract 1.1), before the token is looked up
            await _send_problem(send, control_characters_problem(where))
            return
        if scope["method"] != "POST":
            # Stateless: no GET stream and no session to DELETE; every message is a POST.
            await _send_problem(
                send,
                Problem(405, "method_not_allowed", "Send MCP messages as JSON-RPC in a POST."),
                {"Allow": "POST"},
            )
            return
        if not _header(scope, b"content-type").lower().startswith("application/json"):
            await _send_problem(
                send,
                Problem(415, "unsupported_media_type", "Send JSON-RPC as application/json."),
            )
            return

        authorization = _header(scope, b"authorization")
        kind, _, raw_token = authorization.partition(" ")
        grant = None
        if kind.lower() == "bearer" and raw_token.strip():
            grant = await _grant_for(raw_token.strip(), mcp_resource(_origin_of(scope)))
        if grant is None:
            challenge = f'Bearer resource_metadata="{resource_metadata_url(scope)}"'
            if raw_token:
                challenge += ', error="invalid_token"'
            await _send_problem(
                send,
                Problem(
                    401,
                    "unauthenticated",
                    "A valid OAuth access token for this MCP server is required.",
                ),
                {"WWW-Authenticate": challenge},
            )
            return

        body = await _read_body(receive)
        if body is None:
            await _send_problem(
                send, Problem(413, "payload_too_large", "The request body is too large.")
            )
            return
        if json_has_control_characters(body):
            # A NUL in a tool's argument would reach PostgreSQL (a 500) or an agent's text.
            await _send_problem(send, control_characters_problem("body"))
            return
        try:
            document = json_body_parse(body)
        except Problem as refused:
            # 2,000 nested brackets, NaN, a 400-digit number: the API's own refusals.
            await _send_problem(send, refused)
            return
        for name in _tools_called(document):
            needed = TOOL_SCOPES.get(name)
            if needed is None:
                # Deny by default: a tool nobody gave a scope to is open to no token.
                await _send_problem(
                    send,
                    Problem(
                        403,
                        "permission_denied",
                        f"The tool {name[:100]} is not offered to agents here.",
                    ),
                )
                return
            if needed not in grant.scopes:
                wanted = " ".join(sorted(grant.scopes | {needed}))
                await _send_problem(
                    send,
                    Problem(
                        403,
                        "insufficient_scope",
                        f"The tool {name} needs the '{needed}' scope; authorize it again with it.",
                    ),
                    {
                        "WWW-Authenticate": f'Bearer error="insufficient_scope", scope="{wanted}", '
                        f'resource_metadata="{resource_metadata_url(scope)}"'
                    },
                )
                return

        replayed = False

        async def replay():
            nonlocal replayed
            if not replayed:
                replayed = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        await self.app({**scope, "agent_grant": grant}, replay, send)
