"""One ASGI application for everything: Django, and the MCP server at /mcp.

A small router sends ``/mcp`` to the official MCP SDK's Streamable HTTP handler (behind
``agents.mcp.gate``: host, origin, OAuth token, scope) and every other path to Django's
ASGI handler. The SDK's session manager runs for the life of the process, in the ASGI
lifespan. It is stateless: the 2026-07-28 revision has no sessions, and clients of the
older revisions (2025-11-25, 2025-06-18) get no ``MCP-Session-Id`` either, so any worker
process can answer any request (``gunicorn -k uvicorn_worker.UvicornWorker -w N``).

Run: ``uvicorn config.asgi:application`` (see the README).
"""

import contextlib
import os

from a2wsgi import WSGIMiddleware
from django.core.asgi import get_asgi_application
from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.local")

django_asgi_application = get_asgi_application()

# Imported once Django is set up: the tools use the ORM and settings.
from django.conf import settings  # noqa: E402

from api.request_bodies import RequestBodyBuffered  # noqa: E402

# Django's own requests (the website, /api/): through its WSGI handler on a pool of
# threads (a2wsgi), each keeping its database connection (CONN_MAX_AGE), or through its
# ASGI handler (ASGI_DJANGO_HANDLER=asgi), which opens a connection per request unless
# DATABASE_POOL is on. Chosen by measurement (bench/bench_serving.py, README "Serving").
if settings.ASGI_DJANGO_HANDLER == "wsgi":
    django_application = WSGIMiddleware(
        get_wsgi_application(), workers=settings.ASGI_DJANGO_THREADS
    )
else:
    django_application = django_asgi_application
# The body in full before a thread (a2wsgi's) or Django sees the request: a client that
# dawdles costs a connection, not a thread (api.request_bodies, issue 35).
django_application = RequestBodyBuffered(django_application)
from mcp.server.transport_security import TransportSecuritySettings  # noqa: E402

from agents.mcp.gate import MCPGate  # noqa: E402
from agents.mcp.server import mcp_server  # noqa: E402
from operations.metrics import MetricsASGI  # noqa: E402
from operations.request_ids import RequestIdASGI  # noqa: E402

# Builds the SDK's session manager (its Starlette app is not used: the gate and this
# router stand in for its routing and auth middleware, and the gate checks Host and Origin
# against the connected domains). JSON responses, not SSE: every tool answers at once.
mcp_server.streamable_http_app(
    streamable_http_path=settings.MCP_PATH,
    stateless_http=True,
    json_response=True,
    transport_security=TransportSecuritySettings(enable_dns_rebinding_protection=False),
)
session_manager = mcp_server.session_manager
# Outside Django's middleware, so its request ids and request metrics are added here.
mcp_application = RequestIdASGI(
    MetricsASGI(MCPGate(session_manager.handle_request), route=settings.MCP_PATH)
)


async def _lifespan(receive, send) -> None:
    """ASGI lifespan: the MCP session manager's task group lives from startup to shutdown."""
    async with contextlib.AsyncExitStack() as stack:
        message = await receive()  # lifespan.startup
        try:
            await stack.enter_async_context(session_manager.run())
        except Exception as exc:  # noqa: BLE001 - reported to the server, which exits
            await send({"type": "lifespan.startup.failed", "message": str(exc)})
            return
        await send({"type": "lifespan.startup.complete"})
        message = await receive()
        assert message["type"] == "lifespan.shutdown"  # noqa: S101 - the ASGI protocol
    await send({"type": "lifespan.shutdown.complete"})


async def application(scope, receive, send):
    if scope["type"] == "lifespan":
        await _lifespan(receive, send)
    elif scope["type"] == "http" and scope["path"].rstrip("/") == settings.MCP_PATH:
        await mcp_application(scope, receive, send)
    else:
        await django_application(scope, receive, send)
