"""Slow clients cost a connection, not a thread (issue 35).

A WSGI application (Django's, the ingest's) reads its request body on a thread: a client
that announces ``Content-Length: 1000`` and sends one byte holds that thread until it
gives up. ``RequestBodyBuffered`` reads the body in the event loop instead, in full and
within ``REQUEST_BODY_TIMEOUT_SECONDS``, before the application is called; a body that
has not arrived by then is 400 ``invalid_body`` and the connection is closed. A waiting
client costs the server a socket and a little memory, never a thread.

Bodies larger than ``max_bytes`` are not buffered past it: the first ``max_bytes`` and the
rest, streamed, go to the application, which refuses an oversized body from its
Content-Length (Django's ``DATA_UPLOAD_MAX_MEMORY_SIZE``, the ingest's ``MAX_BODY_BYTES``).

The proxy (deploy/Caddyfile) does the same in front of every process; this is for the
processes that can do it themselves (the ASGI ones: ``mcp`` and ``ingest``).

The ``web`` process (gunicorn's threaded worker) parses headers and bodies on its threads
and has no timeout of its own for either. ``RequestBodyReadWithin`` bounds the body there:
it reads it through gunicorn's socket with a deadline, so a dawdling client holds a thread
for at most ``REQUEST_BODY_TIMEOUT_SECONDS``, not for as long as it likes. Slow headers
still hold a thread: only the proxy protects ``web`` from those (README, "Serving").
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import json
import socket
import time

from django.conf import settings

from api.problems import Problem
from core.request_ids import request_id_new, request_id_set, request_id_valid


class RequestBodyBuffered:
    def __init__(self, app, *, max_bytes: int | None = None, timeout_seconds: float | None = None):
        self.app = app
        self.max_bytes = (
            max_bytes if max_bytes is not None else settings.DATA_UPLOAD_MAX_MEMORY_SIZE
        )
        self.timeout_seconds = (
            timeout_seconds
            if timeout_seconds is not None
            else settings.REQUEST_BODY_TIMEOUT_SECONDS
        )

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        chunks: list[bytes] = []
        size = 0
        more = True
        try:
            async with asyncio.timeout(self.timeout_seconds):
                while more and size <= self.max_bytes:
                    message = await receive()
                    if message["type"] == "http.disconnect":
                        return  # the client left: nobody to answer
                    chunk = message.get("body", b"")
                    chunks.append(chunk)
                    size += len(chunk)
                    more = message.get("more_body", False)
        except TimeoutError:
            await _body_too_slow(scope, send, self.timeout_seconds)
            return
        body = b"".join(chunks)
        replayed = False

        async def receive_buffered():
            nonlocal replayed
            if not replayed:
                replayed = True
                return {"type": "http.request", "body": body, "more_body": more}
            return await receive()

        await self.app(scope, receive_buffered, send)


async def _body_too_slow(scope, send, timeout_seconds: float) -> None:
    given = dict(scope.get("headers") or []).get(b"x-request-id", b"").decode("latin-1")
    request_id, content = _body_too_slow_problem(given, timeout_seconds)
    await send(
        {
            "type": "http.response.start",
            "status": 400,
            "headers": [
                (b"content-type", b"application/problem+json"),
                (b"content-length", str(len(content)).encode()),
                (b"connection", b"close"),
                (b"x-request-id", request_id.encode()),
            ],
        }
    )
    await send({"type": "http.response.body", "body": content})


class RequestBodyReadWithin:
    """WSGI: read a Content-Length body within the deadline before the application runs
    (gunicorn only: it needs ``gunicorn.socket`` to set the deadline on)."""

    def __init__(self, app, *, max_bytes: int | None = None, timeout_seconds: float | None = None):
        self.app = app
        self.max_bytes = (
            max_bytes if max_bytes is not None else settings.DATA_UPLOAD_MAX_MEMORY_SIZE
        )
        self.timeout_seconds = (
            timeout_seconds
            if timeout_seconds is not None
            else settings.REQUEST_BODY_TIMEOUT_SECONDS
        )

    def __call__(self, environ, start_response):
        sock = environ.get("gunicorn.socket")
        try:
            length = int(environ.get("CONTENT_LENGTH") or 0)
        except ValueError:
            length = 0
        if sock is None or not 0 < length <= self.max_bytes:
            return self.app(environ, start_response)
        deadline = time.monotonic() + self.timeout_seconds
        chunks: list[bytes] = []
        remaining = length
        try:
            while remaining > 0:
                left = deadline - time.monotonic()
                if left <= 0:
                    raise TimeoutError
                sock.settimeout(left)
                chunk = environ["wsgi.input"].read(min(remaining, 65536))
                if not chunk:
                    break
                chunks.append(chunk)
                remaining -= len(chunk)
        except (TimeoutError, OSError):
            # gunicorn keeps the connection and would wait again for the rest of the body
            # (its keep-alive drain); with reading shut, it finds none and closes.
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RD)
            return _body_too_slow_wsgi(environ, start_response, self.timeout_seconds)
        finally:
            with contextlib.suppress(OSError):
                sock.settimeout(None)
        environ["wsgi.input"] = io.BytesIO(b"".join(chunks))
        return self.app(environ, start_response)


def _body_too_slow_problem(given: str, timeout_seconds: float) -> tuple[str, bytes]:
    request_id = given if request_id_valid(given) else request_id_new()
    request_id_set(request_id)
    problem = Problem(
        400,
        "invalid_body",
        f"The request body did not arrive within {timeout_seconds:g} seconds.",
    )
    return request_id, json.dumps(problem.as_body()).encode()


def _body_too_slow_wsgi(environ, start_response, timeout_seconds: float):
    request_id, content = _body_too_slow_problem(
        environ.get("HTTP_X_REQUEST_ID", ""), timeout_seconds
    )
    start_response(
        "400 Bad Request",
        [
            ("Content-Type", "application/problem+json"),
            ("Content-Length", str(len(content))),
            ("Connection", "close"),
            ("X-Request-ID", request_id),
        ],
    )
    return [content]
