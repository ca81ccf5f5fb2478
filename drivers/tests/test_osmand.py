"""The OsmAnd protocol as Traccar Client sends it (issue 27): recorded requests replayed
through the Django view and the ingest process's WSGI application alike."""

from __future__ import annotations

import datetime as dt
import io
from pathlib import Path
from urllib.parse import urlsplit

import pytest
import time_machine
from django.test import Client
from rest_framework.authtoken.models import Token

from core.testing.places import LEEDS
from drivers.positions import FIX_MAX_AHEAD, position_latest, positions_backend
from drivers.positions.credentials import tracker_device_register
from drivers.tests.factories import UserFactory, driver_at
from drivers.tests.ingest_client import wsgi_call

pytestmark = pytest.mark.django_db


DATA = Path(__file__).parent / "data"
RECORDED_AT = dt.datetime(2026, 11, 25, 14, 5, 9, tzinfo=dt.UTC)  # the fix's own time


def recorded(name: str, token: str) -> tuple[str, str, dict[str, str], bytes]:
    """(method, target, headers, body) of a recorded request, with the token filled in."""
    raw = (DATA / name).read_bytes().replace(b"{token}", token.encode())
    head, _, body = raw.partition(b"\r\n\r\n")
    request_line, *header_lines = head.decode().split("\r\n")
    method, target, _ = request_line.split(" ")
    headers = dict(line.split(": ", 1) for line in header_lines)
    return method, target, headers, body


def via_django(method, target, headers, body):
    url = urlsplit(target)
    client = Client()
    return client.generic(
        method,
        f"{url.path}?{url.query}" if url.query else url.path,
        data=body,
        content_type=headers.get("Content-Type", ""),
        HTTP_USER_AGENT=headers.get("User-Agent", ""),
    )


def via_wsgi(method, target, headers, body) -> tuple[int, bytes]:
    url = urlsplit(target)
    environ = {
        "REQUEST_METHOD": method,
        "PATH_INFO": url.path,
        "QUERY_STRING": url.query,
        "CONTENT_TYPE": headers.get("Content-Type", ""),
        "CONTENT_LENGTH": str(len(body)),
        "wsgi.input": io.BytesIO(body),
    }
    status = []
    chunks = wsgi_call(environ, lambda s, h: status.append(s))
    return int(status[0].split()[0]), b"".join(chunks)


@pytest.fixture
def device():
    driver = driver_at(LEEDS)
    _, token = tracker_device_register(driver=driver, device_id="48241179")
    return driver, token


@pytest.mark.parametrize("name", ["osmand_query.http", "osmand_json.http"])
@pytest.mark.parametrize("door", [via_django, via_wsgi])
def test_a_recorded_traccar_client_request_records_the_position(device, name, door):
    driver, token = device
    with time_machine.travel(RECORDED_AT + dt.timedelta(seconds=2), tick=False):
        answer = door(*recorded(name, token))
        status = answer[0] if isinstance(answer, tuple) else answer.status_code
        assert status == 200
        fix = position_latest(driver.pk)
    assert (fix.lat, fix.lng, fix.heading) == (53.7955, -1.5491, 45.0)
    assert fix.at == RECORDED_AT
    if positions_backend().name == "redis":  # the driver's row keeps no speed or accuracy
        assert fix.accuracy == 6.0
        # knots in the query format, metres per second in the JSON one: both near 5 m/s
        assert fix.speed == pytest.approx(5.0, abs=0.02)


@pytest.mark.parametrize("door", [via_django, via_wsgi])
def test_a_token_with_another_device_id_is_refused(device, door):
    driver, token = device
    method, target, headers, body = recorded("osmand_query.http", token)
    with time_machine.travel(RECORDED_AT, tick=False):
        answer = door(method, target.replace("id=48241179", "id=99999999"), headers, body)
    status = answer[0] if isinstance(answer, tuple) else answer.status_code
    assert status == 401
    assert position_latest(driver.pk) is None


def test_an_unknown_token_is_401_problem_json(device):
    # At the recorded fix's own time: the report is read (its device id) before the token.
    with time_machine.travel(RECORDED_AT + dt.timedelta(seconds=2), tick=False):
        response = via_django(*recorded("osmand_query.http", "not-a-token"))
    assert response.status_code == 401
    assert response["Content-Type"] == "application/problem+json"
    assert response.json()["code"] == "unauthenticated"


def test_a_report_marked_invalid_is_taken_and_records_nothing(device):
    driver, token = device
    response = Client().get(f"/api/public/v1/osmand/{token}?id=48241179&valid=false&lat=1&lon=2")
    assert response.status_code == 200
    assert position_latest(driver.pk) is None


@pytest.mark.parametrize(
    "query",
    ["lat=95&lon=0", "lat=abc&lon=0", "lat=1&lon=2&timestamp=12345", "lat=1&lon=2&speed=-5x"],
)
def test_bad_osmand_values_are_400_problems(device, query):
    _, token = device
    response = Client().get(f"/api/public/v1/osmand/{token}?id=48241179&{query}")
    assert response.status_code == 400
    assert response["Content-Type"] == "application/problem+json"


def test_a_fix_ahead_of_the_servers_clock_is_refused_past_the_allowance(device):
    # The tracker's door checks the fix's time as the app's does (issue 37): a phone's
    # clock within FIX_MAX_AHEAD is taken, beyond it the report is 400 and not recorded.
    driver, token = device
    target = f"/api/public/v1/osmand/{token}?id=48241179&lon=-1.55"
    with time_machine.travel(RECORDED_AT, tick=False):
        within = int((RECORDED_AT + FIX_MAX_AHEAD).timestamp())
        assert Client().get(f"{target}&lat=53.8&timestamp={within}").status_code == 200
        ahead = within + 1
        response = Client().get(f"{target}&lat=53.9&timestamp={ahead}")
    assert response.status_code == 400
    assert response.json()["errors"]["timestamp"]
    assert position_latest(driver.pk).lat == pytest.approx(53.8)


def test_the_issue_command_prints_a_server_url_that_works_once_per_token(capsys):
    import json as json_module

    from django.core.management import call_command

    driver = driver_at(LEEDS)
    call_command("tracker_device_issue", "--driver", str(driver.pk), "--device-id", "48241179")
    first = json_module.loads(capsys.readouterr().out.strip().splitlines()[-1])
    call_command("tracker_device_issue", "--driver", str(driver.pk), "--device-id", "48241179")
    second = json_module.loads(capsys.readouterr().out.strip().splitlines()[-1])
    old_path = urlsplit(first["serverUrl"]).path
    new_path = urlsplit(second["serverUrl"]).path
    assert Client().get(f"{old_path}?id=48241179&lat=53.8&lon=-1.55").status_code == 401
    assert Client().get(f"{new_path}?id=48241179&lat=53.8&lon=-1.55").status_code == 200
    assert position_latest(driver.pk).lat == 53.8


def test_form_parameters_in_a_post_body_are_read_too(device):
    driver, token = device
    response = Client().post(
        f"/api/public/v1/osmand/{token}",
        data="id=48241179&lat=53.7955&lon=-1.5491&bearing=90",
        content_type="application/x-www-form-urlencoded",
    )
    assert response.status_code == 200
    assert (position_latest(driver.pk).lat, position_latest(driver.pk).heading) == (53.7955, 90.0)


def test_a_tracker_and_the_app_share_the_drivers_limit(device, settings):
    driver, token = device
    driver.user = UserFactory()
    driver.save(update_fields=["user"])
    app_token = Token.objects.create(user=driver.user).key
    settings.RATELIMITS = {**settings.RATELIMITS, "driver_location": "3/h"}
    report = f"/api/public/v1/osmand/{token}?id=48241179&lat=53.8&lon=-1.55"
    answers = [Client().post(report).status_code for _ in range(3)]
    refused = Client().post(report)
    app = Client().post(
        "/api/public/v1/driver/location",
        data={"lat": 53.8, "lng": -1.55},
        content_type="application/json",
        HTTP_AUTHORIZATION=f"Token {app_token}",
    )
    assert answers == [200, 200, 200]
    assert refused.status_code == 429
    assert int(refused["Retry-After"]) > 0
    assert app.status_code == 429


def test_a_post_with_an_idempotency_key_is_recorded_once(device):
    driver, token = device
    first = Client().post(
        f"/api/public/v1/osmand/{token}?id=48241179&lat=53.80&lon=-1.55",
        HTTP_IDEMPOTENCY_KEY="fix-1",
    )
    Client().get(f"/api/public/v1/osmand/{token}?id=48241179&lat=53.801&lon=-1.55")
    again = Client().post(
        f"/api/public/v1/osmand/{token}?id=48241179&lat=53.80&lon=-1.55",
        HTTP_IDEMPOTENCY_KEY="fix-1",
    )
    other = Client().post(
        f"/api/public/v1/osmand/{token}?id=48241179&lat=53.802&lon=-1.55",
        HTTP_IDEMPOTENCY_KEY="fix-1",
    )
    assert (first.status_code, again.status_code) == (200, 200)
    assert again["Idempotent-Replayed"] == "true"
    assert position_latest(driver.pk).lat == 53.801  # 110 m on: plausible
    assert other.status_code == 422


@pytest.mark.parametrize("method", ["put", "get"])
def test_any_method_and_any_accept_header_are_taken(device, method):
    # The original OsmAnd format comes with any method, and a tracker's HTTP library says
    # what it accepts as it likes: neither is refused.
    driver, token = device
    response = getattr(Client(), method)(
        f"/api/public/v1/osmand/{token}?id=48241179&lat=53.8&lon=-1.55", HTTP_ACCEPT="text/html"
    )
    assert response.status_code == 200
    assert position_latest(driver.pk).lat == 53.8
