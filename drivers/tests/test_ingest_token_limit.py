"""Failed tokens at the position ingest are limited per client address (issue 35: "The
ingest has no limit on failed tokens, and each one is a database read"), on every door:
the ingest process (WSGI/ASGI), the Django views, the app's format and OsmAnd's."""

from __future__ import annotations

import io
import json
import time

import pytest
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from core.testing.network import caches_unreachable
from core.testing.places import LEEDS
from drivers.tests.factories import UserFactory, driver_at
from drivers.tests.ingest_client import wsgi_call
from guards.models import LimitCount

pytestmark = pytest.mark.django_db

URL = "/api/public/v1/driver/location"
FIX = json.dumps({"lat": LEEDS[0], "lng": LEEDS[1]}).encode()
HERE, ELSEWHERE = "198.51.100.20", "198.51.100.21"


@pytest.fixture(autouse=True)
def three_failures_a_minute(settings):
    settings.RATELIMITS = {**settings.RATELIMITS, "ingest_token": "3/m"}


@pytest.fixture
def token():
    return Token.objects.create(user=driver_at(LEEDS, user=UserFactory()).user).key


def ingest(
    path, *, address, token=None, query="", forwarded_for=None
) -> tuple[int, dict[str, str], bytes]:
    """A request to the ingest process's application, from ``address``."""
    body = b"" if query else FIX  # OsmAnd's report is in the query
    environ = {
        "REQUEST_METHOD": "GET" if query else "POST",
        "PATH_INFO": path,
        "QUERY_STRING": query,
        "REMOTE_ADDR": address,
        "CONTENT_TYPE": "" if query else "application/json",
        "CONTENT_LENGTH": str(len(body)),
        "wsgi.input": io.BytesIO(body),
    }
    if token is not None:
        environ["HTTP_AUTHORIZATION"] = f"Token {token}"
    if forwarded_for is not None:
        environ["HTTP_X_FORWARDED_FOR"] = forwarded_for
    seen = {}

    def start_response(status, headers):
        seen["status"], seen["headers"] = int(status.split()[0]), dict(headers)

    body = b"".join(wsgi_call(environ, start_response))
    return seen["status"], seen["headers"], body


def assert_limited(status, headers, body):
    assert status == 429
    assert headers["Content-Type"] == "application/problem+json"
    assert json.loads(body)["code"] == "rate_limited"
    assert 0 < int(headers["Retry-After"]) <= 60


def test_after_the_allowance_a_token_is_refused_unread(token, django_assert_num_queries):
    for n in range(3):
        assert ingest(URL, address=HERE, token=f"guess-{n}")[0] == 401
    assert_limited(*ingest(URL, address=HERE, token="guess-3"))
    with django_assert_num_queries(0):  # refused before any read
        assert_limited(*ingest(URL, address=HERE, token=token))
    # another address is not affected
    assert ingest(URL, address=ELSEWHERE, token=token)[0] == 200


def test_a_remembered_token_keeps_reporting_from_that_address(token, settings):
    settings.POSITIONS_TOKEN_CACHE_SECONDS = 60
    assert ingest(URL, address=HERE, token=token)[0] == 200
    for n in range(4):
        ingest(URL, address=HERE, token=f"guess-{n}")
    assert ingest(URL, address=HERE, token=token)[0] == 200


def test_osmand_tokens_share_the_limit():
    query = f"id=48241179&timestamp={int(time.time())}&lat={LEEDS[0]}&lon={LEEDS[1]}"
    for n in range(3):
        assert ingest(f"/api/public/v1/osmand/guess-{n}", address=HERE, query=query)[0] == 401
    assert_limited(*ingest("/api/public/v1/osmand/guess-3", address=HERE, query=query))
    assert ingest(URL, address=HERE, token="guess-4")[0] == 429


def test_the_django_view_counts_the_same_failures(token):
    client = APIClient(REMOTE_ADDR=HERE)
    for n in range(3):
        client.credentials(HTTP_AUTHORIZATION=f"Token guess-{n}")
        assert client.post(URL, FIX, content_type="application/json").status_code == 401
    client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    response = client.post(URL, FIX, content_type="application/json")
    assert response.status_code == 429
    assert response.json()["code"] == "rate_limited"
    assert int(response["Retry-After"]) > 0


def test_with_the_cache_down_failures_are_counted_in_the_database(settings):
    caches_unreachable(settings)
    for n in range(3):
        assert ingest(URL, address=HERE, token=f"guess-{n}")[0] == 401
    assert LimitCount.objects.get(scope="ingest_token").count == 3
    assert_limited(*ingest(URL, address=HERE, token="guess-3"))


def test_behind_a_trusted_proxy_each_client_has_its_own_allowance(settings):
    """The address is the rate limits' own (``api.callers.client_address``): behind the
    proxy named in TRUSTED_PROXIES, the client it forwards for, not the proxy."""
    settings.TRUSTED_PROXIES = ["10.0.0.0/8"]
    for n in range(3):
        ingest(URL, address="10.0.0.5", token=f"guess-{n}", forwarded_for=HERE)
    assert_limited(*ingest(URL, address="10.0.0.5", token="guess-3", forwarded_for=HERE))
    assert ingest(URL, address="10.0.0.5", token="guess-4", forwarded_for=ELSEWHERE)[0] == 401
