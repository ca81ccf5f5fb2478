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


@pytest.mark.django_db
def test_reuse_and_in_flight_problems_say_what_happened_and_when_to_retry(client):
    from api.idempotency import _digest

    post(client, "iota", key="used")
    reuse = post(client, "kappa", key="used")
    assert_problem(reuse, 422, "idempotency_key_reuse")
    assert reuse.json()["detail"] == (
        "This Idempotency-Key was already used with a different request body."
    )
    IdempotencyRecordFactory(
        scope=_digest("ip:127.0.0.1", "POST", "/api/probe", "busy"),
        request_hash=_digest("", json.dumps({"name": "lambda"}).encode()),
    )
    busy = post(client, "lambda", key="busy")
    assert busy.json()["detail"] == "A request with this Idempotency-Key is still being processed."
    assert busy["Retry-After"] == "1"


@pytest.mark.django_db
def test_a_finished_request_older_than_the_in_flight_timeout_is_still_replayed(client):
    """Only a claim still in flight goes stale after five minutes; a stored response is kept
    for the whole retention."""
    post(client, "mu")
    IdempotencyRecord.objects.update(created_at=timezone.now() - timedelta(minutes=10))
    replayed = post(client, "mu")
    assert replayed.status_code == 201
    assert replayed["Idempotent-Replayed"] == "true"
    assert Account.objects.filter(slug="mu").count() == 1


@pytest.mark.django_db
def test_a_claim_and_a_record_exactly_at_their_limits_are_still_held(client):
    import time_machine

    from api.idempotency import IN_FLIGHT_TIMEOUT, _digest

    now = timezone.now().replace(microsecond=0)
    IdempotencyRecordFactory(
        scope=_digest("ip:127.0.0.1", "POST", "/api/probe", "busy"),
        request_hash=_digest("", json.dumps({"name": "nu"}).encode()),
        created_at=now - IN_FLIGHT_TIMEOUT,
    )
    post(client, "xi", key="done")
    IdempotencyRecord.objects.filter(state=IdempotencyRecord.State.DONE).update(
        created_at=now - timedelta(hours=24)
    )
    with time_machine.travel(now, tick=False):
        assert_problem(post(client, "nu", key="busy"), 409, "idempotency_conflict")
        assert post(client, "xi", key="done")["Idempotent-Replayed"] == "true"


def keyed_request(method: str = "post", path: str = "/api/probe"):
    from django.test import RequestFactory

    return RequestFactory().generic(
        method.upper(), path, b"{}", "application/json", HTTP_IDEMPOTENCY_KEY="key-1"
    )


@pytest.mark.django_db
@pytest.mark.parametrize("method", ["post", "put", "patch"])
def test_a_key_is_claimed_on_every_writing_method_and_kept_with_it(method):
    from api.idempotency import idempotency_claim

    record_id = idempotency_claim(keyed_request(method), caller="ip:1")
    record = IdempotencyRecord.objects.get(pk=record_id)
    assert (record.method, record.path) == (method.upper(), "/api/probe")


@pytest.mark.django_db
@pytest.mark.parametrize("method", ["get", "delete", "options"])
def test_a_key_on_a_request_that_writes_nothing_is_ignored(method):
    from api.idempotency import idempotency_claim

    assert idempotency_claim(keyed_request(method), caller="ip:1") is None
    assert not IdempotencyRecord.objects.exists()


@pytest.mark.django_db
def test_a_long_path_is_kept_to_its_column():
    from api.idempotency import idempotency_claim

    path = "/api/" + "p" * 300
    record_id = idempotency_claim(keyed_request(path=path), caller="ip:1")
    assert IdempotencyRecord.objects.get(pk=record_id).path == path[:255]


@pytest.mark.django_db
def test_a_request_without_a_query_string_hashes_as_an_empty_one():
    """WSGI servers may leave QUERY_STRING out when there is none (PEP 3333): the stored
    request hash is then that of an empty query string."""
    import hashlib

    from api.idempotency import idempotency_claim

    request = keyed_request()
    del request.META["QUERY_STRING"]
    record_id = idempotency_claim(request, caller="ip:1")
    stored = IdempotencyRecord.objects.get(pk=record_id).request_hash
    assert stored == hashlib.sha256(b"\x00{}\x00").hexdigest()


class LostClaims:
    """Every insert loses to another request's row, which is gone when read back (a claim
    forgotten in between, again and again): counts the inserts tried."""

    def __init__(self, monkeypatch):
        from django.db import IntegrityError

        self.inserts = 0

        def lose(**fields):
            self.inserts += 1
            raise IntegrityError("duplicate key")

        monkeypatch.setattr(IdempotencyRecord.objects, "create", lose)


@pytest.mark.django_db
def test_a_key_that_cannot_be_claimed_in_three_tries_is_a_409_to_retry(monkeypatch):
    from api.idempotency import idempotency_claim
    from api.problems import Problem

    lost = LostClaims(monkeypatch)
    with pytest.raises(Problem) as conflict:
        idempotency_claim(keyed_request(), caller="ip:1")
    assert lost.inserts == 3
    assert (conflict.value.status, conflict.value.code) == (409, "idempotency_conflict")
    assert conflict.value.detail == "Could not claim the Idempotency-Key; retry."
    assert conflict.value.headers == {"Retry-After": "1"}


@pytest.mark.django_db
def test_a_streamed_response_is_kept_without_its_body():
    from django.http import StreamingHttpResponse

    from api.idempotency import idempotency_claim, idempotency_settle

    record_id = idempotency_claim(keyed_request(), caller="ip:1")
    idempotency_settle(record_id, StreamingHttpResponse(iter([b"a", b"b"]), status=200))
    record = IdempotencyRecord.objects.get(pk=record_id)
    assert (record.state, record.response_status) == (IdempotencyRecord.State.DONE, 200)
    assert bytes(record.response_body) == b""


def test_a_part_that_is_not_valid_unicode_still_digests():
    """A lone surrogate is digested as its own bytes, not refused with a UnicodeEncodeError.
    No part reaching it over HTTP holds one today (headers are latin-1 decoded, the path
    strictly UTF-8): the digest stays total whatever a caller passes it."""
    import hashlib

    from api.idempotency import _digest

    expected = hashlib.sha256("k\udc80".encode("utf-8", "surrogatepass") + b"\x00")
    assert _digest("k\udc80") == expected.hexdigest()


@pytest.mark.django_db
def test_same_key_and_body_with_another_query_string_is_422(client):
    with override_settings(RATELIMITS=LIMITS):
        first = client.post(
            "/api/probe?dry=0",
            data=json.dumps({"name": "omicron"}),
            content_type="application/json",
            HTTP_IDEMPOTENCY_KEY="q-1",
        )
        other = client.post(
            "/api/probe?dry=1",
            data=json.dumps({"name": "omicron"}),
            content_type="application/json",
            HTTP_IDEMPOTENCY_KEY="q-1",
        )
    assert first.status_code == 201
    assert_problem(other, 422, "idempotency_key_reuse")


@pytest.mark.django_db
def test_a_claim_left_in_flight_by_a_request_that_died_is_taken_over(client):
    from api.idempotency import IN_FLIGHT_TIMEOUT, _digest

    # Given the first request with this key claimed it six minutes ago and never ended...
    dead = IdempotencyRecordFactory(
        scope=_digest("ip:127.0.0.1", "POST", "/api/probe", "dead"),
        request_hash=_digest("", json.dumps({"name": "pi"}).encode()),
        created_at=timezone.now() - IN_FLIGHT_TIMEOUT - timedelta(minutes=1),
    )
    response = post(client, "pi", key="dead")
    assert response.status_code == 201
    assert "Idempotent-Replayed" not in response
    assert not IdempotencyRecord.objects.filter(pk=dead.pk).exists()
    assert IdempotencyRecord.objects.get().state == IdempotencyRecord.State.DONE


@pytest.mark.django_db
def test_taking_over_a_dead_claim_leaves_another_keys_record_of_the_same_instant(client):
    from api.idempotency import _digest

    # Given a dead claim and another key's finished request, both made at one instant...
    post(client, "rho", key="done")
    IdempotencyRecordFactory(
        scope=_digest("ip:127.0.0.1", "POST", "/api/probe", "dead"),
        request_hash=_digest("", json.dumps({"name": "sigma"}).encode()),
    )
    IdempotencyRecord.objects.update(created_at=timezone.now() - timedelta(minutes=10))
    # ...taking over the dead claim forgets nothing of the other key
    assert post(client, "sigma", key="dead").status_code == 201
    assert post(client, "rho", key="done")["Idempotent-Replayed"] == "true"
