"""api.request_bodies (issue 35): an ASGI process reads a body in the event loop, in full
and within the deadline, before the application (and its thread) is called."""

from __future__ import annotations

import asyncio
import json

from api.request_bodies import RequestBodyBuffered

SCOPE = {"type": "http", "method": "POST", "path": "/api/public/v1/quote", "headers": []}


def _run(middleware, messages, *, then_wait: bool = False):
    """Drive ``middleware`` with ``messages`` from the client (then silence, if asked);
    return what it sent."""
    sent = []

    async def receive():
        if messages:
            return messages.pop(0)
        if then_wait:
            await asyncio.sleep(3600)
        return {"type": "http.disconnect"}

    async def send(message):
        sent.append(message)

    asyncio.run(middleware(SCOPE, receive, send))
    return sent


def _recording_app(seen):
    async def app(scope, receive, send):
        seen.append(await receive())
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"ok"})

    return app


def test_a_body_that_does_not_arrive_in_time_is_400_and_takes_no_thread():
    seen = []
    middleware = RequestBodyBuffered(_recording_app(seen), timeout_seconds=0.2, max_bytes=1000)

    sent = _run(
        middleware,
        [{"type": "http.request", "body": b"{", "more_body": True}],
        then_wait=True,
    )

    assert seen == []  # the application never ran
    assert sent[0]["status"] == 400
    problem = json.loads(sent[1]["body"])
    assert problem["code"] == "invalid_body"
    assert (b"content-type", b"application/problem+json") in sent[0]["headers"]


def test_a_body_in_pieces_reaches_the_application_whole():
    seen = []
    middleware = RequestBodyBuffered(_recording_app(seen), timeout_seconds=5, max_bytes=1000)

    sent = _run(
        middleware,
        [
            {"type": "http.request", "body": b'{"a"', "more_body": True},
            {"type": "http.request", "body": b": 1}", "more_body": False},
        ],
    )

    assert seen == [{"type": "http.request", "body": b'{"a": 1}', "more_body": False}]
    assert sent[0]["status"] == 200


def test_a_body_over_the_limit_is_not_buffered_past_it():
    seen = []
    middleware = RequestBodyBuffered(_recording_app(seen), timeout_seconds=5, max_bytes=4)

    _run(
        middleware,
        [
            {"type": "http.request", "body": b"12345", "more_body": True},
            {"type": "http.request", "body": b"67890", "more_body": False},
        ],
    )

    # The application gets what was read, told that more follows, and reads on itself.
    assert seen == [{"type": "http.request", "body": b"12345", "more_body": True}]
