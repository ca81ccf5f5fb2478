"""A backing service that refuses or drops the connection is 503 service_unavailable with
Retry-After, never a 500 (contract 1.1). tests/test_operations_faults.py stops a real
PostgreSQL; here the failure is raised where the ORM would raise it."""

from __future__ import annotations

import pytest
from django.db import InterfaceError, OperationalError
from redis.exceptions import ConnectionError as RedisConnectionError

from bookings import actions

REFUSED = (
    OperationalError('connection to server at "127.0.0.1", port 5432 failed: Connection refused'),
    OperationalError("couldn't get a connection after 30.00 sec"),  # the pool's PoolTimeout
    InterfaceError("connection already closed"),
    RedisConnectionError("Error 111 connecting to 127.0.0.1:6379. Connection refused."),
)


@pytest.mark.parametrize("error", REFUSED, ids=lambda e: type(e).__name__)
def test_an_api_call_meeting_a_backing_service_down_is_503_with_retry_after(
    client, monkeypatch, error
):
    def refuse(*args, **kwargs):
        raise error

    monkeypatch.setattr(actions, "booking_lookup", refuse)

    response = client.get(
        "/api/public/v1/booking/DTD-ABC123", {"email": "a@example.com"}, HTTP_X_REQUEST_ID="r-503"
    )

    assert response.status_code == 503
    assert response["Content-Type"] == "application/problem+json"
    assert int(response["Retry-After"]) > 0
    body = response.json()
    assert body["code"] == "service_unavailable"
    assert body["requestId"] == "r-503"
    assert "5432" not in body["detail"]


def test_a_page_meeting_the_database_down_is_503_not_500(client, monkeypatch):
    from django.contrib.sessions.backends import db as session_db

    def refuse(*args, **kwargs):
        raise OperationalError("connection refused")

    # Raised inside a middleware (the session), outside any view: handler500's path.
    monkeypatch.setattr(session_db.SessionStore, "load", refuse)
    client.cookies["sessionid"] = "x" * 32

    response = client.get("/driver/login/")

    assert response.status_code == 503
    assert int(response["Retry-After"]) > 0
