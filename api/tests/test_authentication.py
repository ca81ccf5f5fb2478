"""API keys from the three headers and HMAC-signed bodies (contract 1.2)."""

import hashlib
import hmac
import json
import time

import pytest
from django.test import override_settings

from api.tests.assertions import assert_problem
from partners.models import AccountKey

pytestmark = [
    pytest.mark.django_db,
    pytest.mark.urls("api.tests.urls"),
    pytest.mark.usefixtures("probe_limits"),
]


@pytest.fixture
def probe_limits():
    with override_settings(RATELIMITS={"probe": "1000/h"}):
        yield


@pytest.mark.parametrize(
    "header",
    ["HTTP_X_SERVICE_AI_KEY", "HTTP_X_API_KEY", "HTTP_AUTHORIZATION"],
)
def test_each_key_header_authenticates(client, make_account, header):
    account = make_account("partner", name="Acme Rides")
    value = f"Bearer {account.raw_key}" if header == "HTTP_AUTHORIZATION" else account.raw_key
    response = client.get("/api/probe", **{header: value})
    assert response.status_code == 200
    assert response.json() == {"account": "acme-rides"}


def test_anonymous_call_is_allowed(client):
    assert client.get("/api/probe").json() == {"account": None}


@pytest.mark.parametrize(
    "header", ["HTTP_X_SERVICE_AI_KEY", "HTTP_X_API_KEY", "HTTP_AUTHORIZATION"]
)
def test_unknown_key_is_401_not_anonymous(client, make_account, header):
    account = make_account("partner")
    wrong = account.raw_key[:-2] + ("AA" if not account.raw_key.endswith("AA") else "BB")
    value = f"Bearer {wrong}" if header == "HTTP_AUTHORIZATION" else wrong
    response = client.get("/api/probe", **{header: value})
    assert_problem(response, 401, "unauthenticated")
    assert response["WWW-Authenticate"].startswith("Bearer")


def test_revoked_key_is_401(client, make_account):
    account = make_account("partner")
    AccountKey.objects.filter(account=account).update(revoked=True)
    assert_problem(client.get("/api/probe", HTTP_X_API_KEY=account.raw_key), 401, "unauthenticated")


def test_key_is_stored_hashed(make_account):
    account = make_account("partner")
    key = AccountKey.objects.get(account=account)
    assert account.raw_key not in key.hashed_key
    assert AccountKey.objects.get_from_key(account.raw_key) == key


def _sign(secret: str, body: bytes, timestamp: str | None = None) -> str:
    signed = body if timestamp is None else timestamp.encode() + b"." + body
    return hmac.new(secret.encode(), signed, hashlib.sha256).hexdigest()


def test_hmac_signed_body_authenticates(client, make_account):
    account = make_account("partner", name="Signer")
    body = json.dumps({"name": "hmac-made"}).encode()
    response = client.post(
        "/api/probe",
        data=body,
        content_type="application/json",
        HTTP_X_PARTNER=account.slug,
        HTTP_X_SIGNATURE=_sign(account.signing_secret, body),
    )
    assert response.status_code == 201


def test_hmac_with_sha256_prefix_and_timestamp(client, make_account):
    account = make_account("operator", name="Timed")
    body = b'{"name": "timed-made"}'
    now = str(int(time.time()))
    response = client.post(
        "/api/probe",
        data=body,
        content_type="application/json",
        HTTP_X_OPERATOR=account.slug,
        HTTP_X_TIMESTAMP=now,
        HTTP_X_SIGNATURE="sha256=" + _sign(account.signing_secret, body, now),
    )
    assert response.status_code == 201


def test_hmac_stale_timestamp_is_401(client, make_account):
    account = make_account("partner", name="Stale")
    body = b'{"name": "stale"}'
    old = str(int(time.time()) - 301)
    response = client.post(
        "/api/probe",
        data=body,
        content_type="application/json",
        HTTP_X_PARTNER=account.slug,
        HTTP_X_TIMESTAMP=old,
        HTTP_X_SIGNATURE=_sign(account.signing_secret, body, old),
    )
    assert_problem(response, 401, "unauthenticated")


def test_hmac_of_another_body_is_401(client, make_account):
    account = make_account("partner", name="Tamper")
    signature = _sign(account.signing_secret, b'{"name": "original"}')
    response = client.post(
        "/api/probe",
        data=b'{"name": "tampered"}',
        content_type="application/json",
        HTTP_X_PARTNER=account.slug,
        HTTP_X_SIGNATURE=signature,
    )
    assert_problem(response, 401, "unauthenticated")
    assert not account.__class__.objects.filter(slug="tampered").exists()


def test_hmac_unknown_account_is_401(client):
    response = client.post(
        "/api/probe",
        data=b"{}",
        content_type="application/json",
        HTTP_X_PARTNER="nobody",
        HTTP_X_SIGNATURE="00",
    )
    assert_problem(response, 401, "unauthenticated")


@override_settings(API_KEY_CACHE_SECONDS=60)
def test_verified_keys_are_cached_but_revocation_is_seen(
    client, make_account, django_assert_num_queries
):
    from partners.authentication import account_key_cache_clear

    account_key_cache_clear()
    account = make_account("partner", name="Cached")
    assert client.get("/api/probe", HTTP_X_API_KEY=account.raw_key).status_code == 200
    # Given a verified key, when it is used again, then no query is needed to accept it.
    with django_assert_num_queries(0):
        assert client.get("/api/probe", HTTP_X_API_KEY=account.raw_key).status_code == 200
    # When the key is revoked through the model (admin, services), it stops working at once.
    key = AccountKey.objects.get(account=account)
    key.revoked = True
    key.save()
    assert_problem(client.get("/api/probe", HTTP_X_API_KEY=account.raw_key), 401, "unauthenticated")


@override_settings(API_KEY_CACHE_SECONDS=60)
def test_each_request_gets_its_own_copy_of_a_cached_key_and_account(make_account):
    from partners.authentication import account_key_cache_clear, account_key_lookup

    account_key_cache_clear()
    account = make_account("partner", name="Copied")
    first = account_key_lookup(account.raw_key)
    first.account.name = "Changed by one request"
    first.account.webhook_url = "https://changed.example/hook"

    second = account_key_lookup(account.raw_key)

    assert second is not first
    assert second.account is not first.account
    assert second.account.name == "Copied"
    assert second.account.webhook_url == ""
    assert second.account.pk == account.pk
    assert second.account_id == account.pk
    assert not second._state.adding
    assert second.account._state.db == "default"
