"""Idempotency-Key: replay, reuse with another body, in-flight conflict (contract 1.3)."""

import json
from datetime import timedelta

import pytest
from django.test import Client, override_settings
from django.utils import timezone

from api.models import IdempotencyRecord
from api.tests.assertions import assert_problem
from api.tests.factories import IdempotencyRecordFactory
from core.testing.concurrency import race
from partners.models import Account
from partners.tests.factories import hmac_hex

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
    from api.idempotency import _digest

    # Given the first request with this key, from this client, is still running...
    IdempotencyRecordFactory(
        scope=_digest("ip:127.0.0.1", "POST", "/api/probe", "busy"),
        request_hash=_digest("", json.dumps({"name": "gamma"}).encode()),
    )
    response = post(client, "gamma", key="busy")
    assert_problem(response, 409, "idempotency_conflict")
    assert response["Retry-After"]
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
    response = post(client, "zeta", key="k" * 256)
    assert_problem(response, 400, "invalid_input")
    assert response.json()["detail"] == "Idempotency-Key must be 1 to 255 characters."
    assert response.json()["errors"] == {"Idempotency-Key": ["Must be 1 to 255 characters."]}


# PostgreSQL and the embedded SQLite default alike (issue 13: "the embedded default
# (SQLite) under 20 concurrent bookings: 'database is locked', 500").
@pytest.mark.django_db(transaction=True)
# Settings are overridden once, here: override_settings is not thread-safe, so threads
# entering and leaving it would leave the wrong settings behind.
@override_settings(RATELIMITS=LIMITS)
def test_twenty_concurrent_requests_with_one_key_create_one_row():

    def post_once():
        return raw_post(Client(), "concurrent", key="same-key").status_code

    statuses = race(*[post_once] * 20)
    assert Account.objects.filter(slug="concurrent").count() == 1
    assert statuses.count(201) >= 1
    assert set(statuses) <= {201, 409}
    assert 500 not in statuses


def signed(account, body: bytes, *, valid: bool = True) -> dict:
    secret = account.signing_secret if valid else "not-the-secret"
    return {"HTTP_X_PARTNER": account.slug, "HTTP_X_SIGNATURE": hmac_hex(secret, body)}


@pytest.mark.django_db
def test_nothing_is_replayed_to_a_caller_that_did_not_authenticate_as_the_signer(
    client, make_account
):
    """Issue 13: "The idempotency scope of an HMAC caller is read from the unverified
    `x-partner` header before authentication: anyone who knows the slug, the key and the
    body gets the partner's stored response, and 422 vs 401 tells whether a key was used"."""
    partner = make_account("partner", name="Signer")
    body = json.dumps({"name": "signed-one"}).encode()
    with override_settings(RATELIMITS=LIMITS):
        first = client.post(
            "/api/probe",
            data=body,
            content_type="application/json",
            HTTP_IDEMPOTENCY_KEY="k-1",
            **signed(partner, body),
        )
        # An impostor who knows the slug, the key and the body, but not the secret...
        same_body = client.post(
            "/api/probe",
            data=body,
            content_type="application/json",
            HTTP_IDEMPOTENCY_KEY="k-1",
            **signed(partner, body, valid=False),
        )
        other = json.dumps({"name": "other"}).encode()
        other_body = client.post(
            "/api/probe",
            data=other,
            content_type="application/json",
            HTTP_IDEMPOTENCY_KEY="k-1",
            **signed(partner, other, valid=False),
        )
        # ...and the signer itself, retrying.
        retry = client.post(
            "/api/probe",
            data=body,
            content_type="application/json",
            HTTP_IDEMPOTENCY_KEY="k-1",
            **signed(partner, body),
        )

    assert first.status_code == 201
    # ...gets 401 either way: no stored response, no hint that the key was used.
    assert_problem(same_body, 401, "unauthenticated")
    assert "Idempotent-Replayed" not in same_body
    assert b"signed-one" not in same_body.content
    assert_problem(other_body, 401, "unauthenticated")
    assert retry.status_code == 201
    assert retry["Idempotent-Replayed"] == "true"
    assert Account.objects.filter(slug="signed-one").count() == 1


@pytest.mark.django_db
def test_a_request_that_fails_unexpectedly_forgets_its_key(client, monkeypatch):
    from api.tests import urls

    real_post = urls.ProbeView.post
    monkeypatch.setattr(urls.ProbeView, "post", lambda self, request: 1 / 0)
    client.raise_request_exception = False
    assert post(client, "theta").status_code == 500
    assert not IdempotencyRecord.objects.exists()
    monkeypatch.setattr(urls.ProbeView, "post", real_post)
    assert post(client, "theta").status_code == 201


@pytest.mark.django_db
def test_records_past_retention_are_purged_by_the_periodic_task(client, settings):
    from api.tasks import idempotency_records_purge

    post(client, "old", key="old")
    post(client, "new", key="new")
    oldest = IdempotencyRecord.objects.order_by("pk").first()
    IdempotencyRecord.objects.filter(pk=oldest.pk).update(
        created_at=timezone.now() - timedelta(hours=25)
    )

    assert idempotency_records_purge.delay().get() == 1
    assert IdempotencyRecord.objects.count() == 1
    assert "api.tasks.idempotency_records_purge" in {
        entry["task"] for entry in settings.CELERY_BEAT_SCHEDULE.values()
    }


@pytest.mark.django_db
def test_non_ascii_key_and_hostile_body_are_answered_without_a_5xx(client):
    client.raise_request_exception = False
    with override_settings(RATELIMITS=LIMITS):
        response = client.post(
            "/api/probe",
            data='{"name": ' + "[" * 2000 + "]" * 2000 + "}",
            content_type="application/json",
            HTTP_IDEMPOTENCY_KEY="cl\u00e9-\u00fc",
        )
    assert_problem(response, 400, "invalid_body")


@pytest.mark.django_db
@pytest.mark.parametrize("length", [1, 255])
def test_keys_of_1_and_255_characters_are_claimed(client, length):
    first = post(client, f"len{length}", key="k" * length)
    second = post(client, f"len{length}", key="k" * length)
    assert first.status_code == second.status_code == 201
    assert second["Idempotent-Replayed"] == "true"
    assert Account.objects.filter(slug=f"len{length}").count() == 1


@pytest.mark.django_db
def test_empty_key_is_400(client):
    assert_problem(post(client, "empty", key=""), 400, "invalid_input")
    assert not Account.objects.exists()


@pytest.mark.django_db
def test_stored_scope_and_request_hash_keep_their_format(client):
    """Records live for the retention window across deploys: a retry after an upgrade must
    still find the key its first request claimed, so the digests are a stored format:
    SHA-256 of each part in UTF-8 followed by a NUL byte."""
    import hashlib

    post(client, "fmt", key="clé-1")
    record = IdempotencyRecord.objects.get()
    body = json.dumps({"name": "fmt"}).encode()
    scope = "ip:127.0.0.1\x00POST\x00/api/probe\x00clé-1\x00".encode()
    assert record.scope == hashlib.sha256(scope).hexdigest()
    assert record.request_hash == hashlib.sha256(b"\x00" + body + b"\x00").hexdigest()


def echo(client, key: str = "echo-1", **data):
    with override_settings(RATELIMITS=LIMITS):
        return client.post(
            "/api/probe/echo",
            data=json.dumps(data),
            content_type="application/json",
            HTTP_IDEMPOTENCY_KEY=key,
        )


@pytest.mark.django_db
def test_a_500_response_forgets_its_key_and_a_499_is_kept(client):
    client.raise_request_exception = False
    assert echo(client, "five", status=500, content={"n": 1}).status_code == 500
    assert not IdempotencyRecord.objects.exists()
    retried = echo(client, "five", status=500, content={"n": 1})
    assert "Idempotent-Replayed" not in retried

    assert echo(client, "four", status=499, content={"n": 2}).status_code == 499
    replayed = echo(client, "four", status=499, content={"n": 2})
    assert replayed.status_code == 499
    assert replayed["Idempotent-Replayed"] == "true"
    assert replayed.json() == {"n": 2}


@pytest.mark.django_db
def test_replay_keeps_the_content_type_and_location_of_the_first_response(client):
    data = {"status": 201, "content": {"id": 7}, "location": "/api/probe/7"}
    data["content_type"] = "application/problem+json"
    first = echo(client, **data)
    replayed = echo(client, **data)
    assert first["Content-Type"] == "application/problem+json"
    assert replayed["Idempotent-Replayed"] == "true"
    assert replayed["Content-Type"] == "application/problem+json"
    assert replayed["Location"] == first["Location"] == "/api/probe/7"


@pytest.mark.django_db
def test_replay_of_a_response_without_location_or_content_type_adds_no_location(client):
    # DRF drops the Content-Type of an empty body: the record keeps "" for it.
    first = echo(client, "empty-204", status=204)
    replayed = echo(client, "empty-204", status=204)
    assert "Content-Type" not in first
    assert IdempotencyRecord.objects.get().response_content_type == ""
    assert replayed.status_code == 204
    assert replayed["Idempotent-Replayed"] == "true"
    assert "Location" not in first
    assert "Location" not in replayed
