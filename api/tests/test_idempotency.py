"""Idempotency-Key: replay, reuse with another body, in-flight conflict (contract 1.3)."""

import json
import threading
from datetime import timedelta

import pytest
from django.db import connection
from django.test import Client, override_settings
from django.utils import timezone

from api.models import IdempotencyRecord
from api.tests.assertions import assert_problem
from partners.models import Account

pytestmark = [pytest.mark.urls("api.tests.urls")]

LIMITS = {"probe": "1000/h"}


def post(client, name: str, key: str | None = "key-1", **extra):
    with override_settings(RATELIMITS=LIMITS):
        return raw_post(client, name, key, **extra)


def raw_post(client, name: str, key: str | None, **extra):
    headers = {"HTTP_IDEMPOTENCY_KEY": key} if key is not None else {}
    return client.post(
        "/api/probe",
        data=json.dumps({"name": name}),
        content_type="application/json",
        **headers,
        **extra,
    )


@pytest.mark.django_db
def test_same_key_same_body_replays_without_creating(client):
    first = post(client, "alpha")
    second = post(client, "alpha")
    assert first.status_code == second.status_code == 201
    assert second.json() == first.json()
    assert second["Idempotent-Replayed"] == "true"
    assert "Idempotent-Replayed" not in first
    assert Account.objects.filter(slug="alpha").count() == 1


@pytest.mark.django_db
def test_same_key_different_body_is_422(client):
    post(client, "alpha")
    assert_problem(post(client, "beta"), 422, "idempotency_key_reuse")
    assert not Account.objects.filter(slug="beta").exists()


@pytest.mark.django_db
def test_key_is_scoped_per_caller(client, make_account):
    one, two = make_account("partner", name="One"), make_account("partner", name="Two")
    assert post(client, "from-one", HTTP_X_API_KEY=one.raw_key).status_code == 201
    # The same key from another caller is a different request altogether.
    response = post(client, "from-two", HTTP_X_API_KEY=two.raw_key)
    assert response.status_code == 201
    assert "Idempotent-Replayed" not in response


@pytest.mark.django_db
def test_key_in_flight_is_409(client):
    from api.idempotency import _digest, caller_fingerprint  # noqa: F401

    IdempotencyRecord.objects.create(scope="x", request_hash="y", method="POST", path="/api/probe")
    # Simulate the in-flight state for this exact scope by claiming it first.
    record = IdempotencyRecord.objects.get(scope="x")
    from django.test import RequestFactory

    request = RequestFactory().post("/api/probe", data=b"{}", content_type="application/json")
    scope = _digest(caller_fingerprint(request), "POST", "/api/probe", "busy")
    record.scope = scope
    record.request_hash = _digest("", json.dumps({"name": "gamma"}).encode())
    record.save()
    response = post(client, "gamma", key="busy")
    assert_problem(response, 409, "idempotency_conflict")
    assert not Account.objects.filter(slug="gamma").exists()


@pytest.mark.django_db
def test_expired_key_is_forgotten(client):
    post(client, "delta")
    IdempotencyRecord.objects.update(created_at=timezone.now() - timedelta(hours=25))
    Account.objects.filter(slug="delta").update(slug="delta-first")
    response = post(client, "delta")
    assert response.status_code == 201
    assert "Idempotent-Replayed" not in response


@pytest.mark.django_db
def test_error_responses_that_invite_retry_are_not_stored(client):
    with override_settings(RATELIMITS={"probe": "1/h"}):
        client.get("/api/probe")
        limited = client.post(
            "/api/probe",
            data=b'{"name": "eps"}',
            content_type="application/json",
            HTTP_IDEMPOTENCY_KEY="k",
        )
    assert limited.status_code == 429
    assert not IdempotencyRecord.objects.exists()


@pytest.mark.django_db
def test_overlong_key_is_400(client):
    assert_problem(post(client, "zeta", key="k" * 256), 400, "invalid_input")


# PostgreSQL and the embedded SQLite default alike (issue 13: "the embedded default
# (SQLite) under 20 concurrent bookings: 'database is locked', 500").
@pytest.mark.django_db(transaction=True)
# Settings are overridden once, here: override_settings is not thread-safe, so threads
# entering and leaving it would leave the wrong settings behind.
@override_settings(RATELIMITS=LIMITS)
def test_twenty_concurrent_requests_with_one_key_create_one_row():
    barrier = threading.Barrier(20)
    statuses: list[int] = []

    def worker():
        client = Client()
        barrier.wait()
        try:
            statuses.append(raw_post(client, "concurrent", key="same-key").status_code)
        finally:
            connection.close()

    threads = [threading.Thread(target=worker) for _ in range(20)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert Account.objects.filter(slug="concurrent").count() == 1
    assert statuses.count(201) >= 1
    assert set(statuses) <= {201, 409}
    assert 500 not in statuses
