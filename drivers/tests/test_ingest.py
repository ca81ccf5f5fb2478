"""POST /api/public/v1/driver/location through the lean ingest (issue 27): one fix or a
buffered batch, the same answers from the Django view and the ingest's WSGI application."""

from __future__ import annotations

import io
import json
from datetime import timedelta

import pytest
from django.utils import timezone
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from core.testing.places import LEEDS, north_of
from drivers.positions import position_latest
from drivers.tests.factories import UserFactory, driver_at
from drivers.tests.ingest_client import wsgi_call

pytestmark = pytest.mark.django_db


URL = "/api/public/v1/driver/location"


@pytest.fixture
def driver():
    return driver_at(LEEDS, user=UserFactory())


@pytest.fixture
def token(driver):
    return Token.objects.create(user=driver.user).key


def post(token, body):
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    return client.post(URL, data=json.dumps(body), content_type="application/json")


def post_wsgi(token, body) -> tuple[int, dict[str, str], bytes]:
    raw = json.dumps(body).encode()
    environ = {
        "REQUEST_METHOD": "POST",
        "PATH_INFO": URL,
        "HTTP_AUTHORIZATION": f"Bearer {token}",
        "CONTENT_TYPE": "application/json",
        "CONTENT_LENGTH": str(len(raw)),
        "wsgi.input": io.BytesIO(raw),
    }
    seen = {}

    def start_response(status, headers):
        seen["status"], seen["headers"] = int(status.split()[0]), dict(headers)

    body = b"".join(wsgi_call(environ, start_response))
    return seen["status"], seen["headers"], body


def iso(moment) -> str:
    return moment.isoformat().replace("+00:00", "Z")


def test_a_buffered_batch_is_taken_and_the_newest_fix_is_the_position(token, driver):
    now = timezone.now()
    fixes = [
        {
            "lat": north_of(LEEDS, i / 10)[0],
            "lng": LEEDS[1],
            "at": iso(now - timedelta(seconds=40 - 5 * i)),
        }
        for i in range(8)
    ]
    response = post(token, {"fixes": fixes})
    assert response.status_code == 200, response.content
    assert response.json()["fixes"] == 8
    assert response.json()["reportedAt"] == fixes[-1]["at"]
    assert position_latest(driver.pk).lat == pytest.approx(fixes[-1]["lat"])


def test_the_ingest_process_answers_as_the_web_process_does(token, driver):
    status, headers, body = post_wsgi(token, {"lat": 53.8, "lng": -1.55, "heading": 10})
    assert status == 200
    assert headers["Content-Type"] == "application/json"
    assert json.loads(body)["heading"] == 10
    assert position_latest(driver.pk).lat == 53.8

    status, headers, body = post_wsgi("wrong", {"lat": 53.8, "lng": -1.55})
    assert status == 401
    assert headers["Content-Type"] == "application/problem+json"
    assert json.loads(body)["code"] == "unauthenticated"


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"lat": 53.8, "lng": -1.5, "speedo": 3}, "speedo"),
        ({"fixes": [{"lat": 53.8, "lng": -1.5}]}, "fixes[0].at"),
        ({"fixes": [{"lat": 53.8, "lng": -1.5, "at": "2001-01-01T00:00:00Z"}]}, "fixes[0].at"),
        ({"fixes": []}, "fixes"),
        ({"fixes": [], "lat": 1}, "lat"),
        ({"lat": True, "lng": -1.5}, "lat"),
        # Beyond what the GEO index holds (the fuzz pass found this as a 503).
        ({"lat": 89, "lng": -1.5491, "heading": 45}, "lat"),
    ],
)
def test_bad_reports_are_400_naming_the_field(token, body, field):
    response = post(token, body)
    assert response.status_code == 400
    assert response["Content-Type"] == "application/problem+json"
    assert field in response.json()["errors"]


def test_a_batch_over_the_limit_is_refused(token, settings):
    settings.POSITIONS_BATCH_MAX = 2
    at = iso(timezone.now())
    response = post(token, {"fixes": [{"lat": 1, "lng": 1, "at": at}] * 3})
    assert response.status_code == 400
    assert response.json()["code"] == "batch_too_large"


@pytest.mark.parametrize("raw", [b"{", b'{"lat": NaN, "lng": 1}', b"[" * 5000, b"1" * 100])
def test_a_body_that_is_not_plain_json_is_400(token, raw):
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    response = client.post(URL, data=raw, content_type="application/json")
    assert response.status_code == 400
    assert response.json()["code"] in ("invalid_body", "invalid_input")


def test_a_login_that_is_not_a_drivers_is_403():
    user = UserFactory()
    response = post(Token.objects.create(user=user).key, {"lat": 53.8, "lng": -1.55})
    assert response.status_code == 403
    assert response.json()["code"] == "permission_denied"


def test_a_position_store_that_is_down_is_503_with_retry_after(token, settings):
    if settings.POSITIONS_BACKEND != "redis":
        pytest.skip("the database backend has no separate store")
    settings.POSITIONS_REDIS_URL = "redis://127.0.0.1:6479/0"  # nothing listens there
    response = post(token, {"lat": 53.8, "lng": -1.55})
    assert response.status_code == 503
    assert response.json()["code"] == "service_unavailable"
    assert int(response["Retry-After"]) > 0
