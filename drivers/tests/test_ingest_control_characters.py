"""Text is text on the ingest process too (contract 1.1, issue 35): a NUL byte or another
control character in the path, query, form or JSON body is 400 ``invalid_input`` before
the token is looked up, under WSGI and under granian's ASGI (drivers.api.ingest_asgi)."""

from __future__ import annotations

import asyncio
import io
import json

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from drivers.api import ingest_asgi
from drivers.tests.ingest_client import wsgi_call

pytestmark = pytest.mark.django_db

LOCATION = "/api/public/v1/driver/location"
OSMAND = "/api/public/v1/osmand/"


def wsgi(path: str, *, query: str = "", body: bytes = b"", content_type="application/json"):
    environ = {
        "REQUEST_METHOD": "POST",
        "PATH_INFO": path,
        "QUERY_STRING": query,
        "HTTP_AUTHORIZATION": "Token some-token",
        "CONTENT_TYPE": content_type,
        "CONTENT_LENGTH": str(len(body)),
        "wsgi.input": io.BytesIO(body),
    }
    seen = {}

    def start_response(status, headers):
        seen["status"] = int(status.split()[0])

    raw = b"".join(wsgi_call(environ, start_response))
    return seen["status"], json.loads(raw)


CASES = [
    pytest.param(OSMAND + "tok\x00en", "", b"", "", "path", id="nul-path"),
    pytest.param(OSMAND + "token", "id=car%00&lat=53.8&lon=-1.5", b"", "", "query", id="query"),
    pytest.param(OSMAND + "token", "id=car\x01", b"", "", "query", id="raw-query"),
    pytest.param(
        OSMAND + "token",
        "",
        b"id=car%1B&lat=53.8&lon=-1.5",
        "application/x-www-form-urlencoded",
        "body",
        id="form",
    ),
    pytest.param(
        LOCATION, "", b'{"lat": 53.8, "lng": -1.5, "at": "2026\\u0000"}', None, "body", id="json"
    ),
    pytest.param(
        LOCATION, "", b'{"lat": 53.8, "lng": -1.5, "n\\bote": 1}', None, "body", id="json-\\b-key"
    ),
]


@pytest.mark.parametrize(("path", "query", "body", "content_type", "where"), CASES)
def test_a_control_character_is_400_before_the_token_is_looked_up(
    path, query, body, content_type, where
):
    with CaptureQueriesContext(connection) as queries:
        status, problem = wsgi(
            path, query=query, body=body, content_type=content_type or "application/json"
        )
    assert (status, problem["code"]) == (400, "invalid_input")
    assert where in problem["errors"]
    assert queries.captured_queries == []


def test_tab_cr_and_lf_in_a_body_and_an_escaped_backslash_are_text():
    """Not refused for a control character: the token is what fails."""
    body = b'{"lat": 53.8, "lng": -1.5, "x": "a\\tb\\r\\nc \\\\b"}'
    status, problem = wsgi(LOCATION, body=body)
    assert (status, problem["code"]) == (401, "unauthenticated")


def asgi(path: str) -> tuple[int, dict]:
    """The ingest's ASGI application as granian calls it (the check runs before any
    thread or database is needed)."""
    sent: list = []
    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": "GET",
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "query_string": b"",
        "root_path": "",
        "headers": [(b"host", b"ingest.internal")],
        "server": ("127.0.0.1", 8001),
        "client": ("127.0.0.1", 50000),
    }

    async def receive():
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message):
        sent.append(message)

    asyncio.run(ingest_asgi.application(scope, receive, send))
    body = b"".join(m.get("body", b"") for m in sent if m["type"] == "http.response.body")
    return sent[0]["status"], json.loads(body)


def test_under_asgi_a_nul_in_the_path_is_400_too():
    status, problem = asgi(OSMAND + "tok\x00en")
    assert (status, problem["code"]) == (400, "invalid_input")
    assert "path" in problem["errors"]
