"""POST /api/public/v1/driver/location through the lean ingest (issue 27): one fix or a
buffered batch, the same answers from the Django view and the ingest's WSGI application."""

from __future__ import annotations

import datetime as dt
import io
import json
import re
from datetime import UTC, timedelta

import pytest
from django.utils import timezone
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from core.errors import DomainError
from core.testing.places import LEEDS, north_of
from drivers.api.ingest import fix_parse, fix_time, fix_time_check
from drivers.positions import (
    FIX_MAX_AGE,
    FIX_MAX_AHEAD,
    Fix,
    position_latest,
    positions_backend,
)
from drivers.tests.factories import UserFactory, driver_at
from drivers.tests.ingest_client import wsgi_call
from guards import ratelimits

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


def post_wsgi(token, body, **more_environ) -> tuple[int, dict[str, str], bytes]:
    raw = json.dumps(body).encode()
    environ = more_environ | {
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


def test_the_ingest_process_answers_healthz_for_its_container_and_proxy():
    environ = {"REQUEST_METHOD": "GET", "PATH_INFO": "/healthz", "wsgi.input": io.BytesIO()}
    seen = {}
    body = b"".join(wsgi_call(environ, lambda status, headers: seen.update(status=status)))
    assert seen["status"] == "200 OK"
    assert json.loads(body) == {"status": "ok"}


def test_the_ingest_process_carries_request_ids_as_the_web_process_does(token):
    """Contract 10.1 behind the proxy, which sends the reports to the ingest process: every
    answer has X-Request-ID (the caller's when well formed) and a problem names it."""
    status, headers, _ = post_wsgi(
        token, {"lat": 53.8, "lng": -1.55}, HTTP_X_REQUEST_ID="phone-7.report_12"
    )
    assert status == 200
    assert headers["X-Request-ID"] == "phone-7.report_12"

    status, headers, body = post_wsgi("wrong", {"lat": 53.8, "lng": -1.55}, HTTP_X_REQUEST_ID="a b")
    assert status == 401
    made = headers["X-Request-ID"]
    assert made != "a b"
    assert len(made) == 32
    assert json.loads(body)["requestId"] == made
    # The next request gets its own.
    assert post_wsgi("wrong", {"lat": 1, "lng": 1})[1]["X-Request-ID"] not in (made, None)


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


def post_with(token, body, **headers):
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    return client.post(URL, data=json.dumps(body), content_type="application/json", **headers)


@pytest.fixture
def three_reports_an_hour(settings):
    settings.RATELIMITS = {**settings.RATELIMITS, "driver_location": "3/h"}


def test_reports_beyond_the_drivers_limit_are_429_with_retry_after(token, three_reports_an_hour):
    # given a limit of 3 reports an hour, counted across both doors
    assert post(token, {"lat": 53.8, "lng": -1.55}).status_code == 200
    assert post(token, {"lat": 53.8, "lng": -1.55}).status_code == 200
    assert post_wsgi(token, {"lat": 53.8, "lng": -1.55})[0] == 200
    # when a fourth comes, through either door
    response = post(token, {"lat": 53.8, "lng": -1.55})
    status, headers, body = post_wsgi(token, {"lat": 53.8, "lng": -1.55})
    # then both are refused until the window ends
    assert response.status_code == 429
    assert response.json()["code"] == "rate_limited"
    assert int(response["Retry-After"]) > 0
    assert (status, json.loads(body)["code"]) == (429, "rate_limited")
    assert int(headers["Retry-After"]) > 0


def test_the_limit_is_per_driver(token, three_reports_an_hour):
    other = Token.objects.create(user=driver_at(LEEDS, user=UserFactory()).user).key
    for _ in range(3):
        post(token, {"lat": 53.8, "lng": -1.55})
    assert post(token, {"lat": 53.8, "lng": -1.55}).status_code == 429
    assert post(other, {"lat": 53.8, "lng": -1.55}).status_code == 200


@pytest.mark.parametrize("backend", ["database", "redis"])
def test_with_the_limits_cache_unreachable_reports_are_still_limited(
    token, three_reports_an_hour, settings, caplog, backend, monkeypatch
):
    # Contract 1.4: no 500 because the limits cache is down. The Redis position store
    # counts the limit in the script that records the report, so it needs no other cache;
    # the database store counts it in the limits cache, per process while that is down.
    if backend == "redis" and not settings.REDIS_URL:
        pytest.skip("the Redis backend needs REDIS_URL")
    settings.POSITIONS_BACKEND = backend
    positions_backend().flush()
    # as in a fresh process: an earlier test's outage may have been logged within the minute,
    # and may have counted this driver's reports in memory (on SQLite a rolled-back driver's
    # id comes again: `make mutate` runs the tests twice in one process)
    monkeypatch.setattr(ratelimits, "_last_warning", [-1e9])
    ratelimits._process_counts.clear()
    settings.CACHES = {
        **settings.CACHES,
        settings.RATELIMIT_USE_CACHE: {
            "BACKEND": "django_redis.cache.RedisCache",
            "LOCATION": "redis://127.0.0.1:6479/0",  # nothing listens there
            "OPTIONS": {"CLIENT_CLASS": "guards.ratelimit_cache.RateLimitCacheClient"},
        },
    }
    answers = [post(token, {"lat": 53.8, "lng": -1.55}).status_code for _ in range(4)]
    assert answers == [200, 200, 200, 429]
    assert ("cache unreachable" in caplog.text) == (backend == "database")


def test_the_same_key_and_body_replay_the_first_answer_and_record_nothing_again(token, driver):
    first_body = {"lat": 53.80, "lng": -1.55}  # no "at": recorded at the server's time
    first = post_with(token, first_body, HTTP_IDEMPOTENCY_KEY="report-1")
    later = post(token, {"lat": 53.801, "lng": -1.55})  # 110 m on, within the GPS allowance
    # when the first report is sent again with its key (a retry after a lost answer)
    again = post_with(token, first_body, HTTP_IDEMPOTENCY_KEY="report-1")
    # then the first answer comes back, marked, and the car is not moved back
    assert (first.status_code, later.status_code) == (200, 200)
    assert (again.status_code, again.content) == (200, first.content)
    assert again["Idempotent-Replayed"] == "true"
    assert "Idempotent-Replayed" not in first
    assert position_latest(driver.pk).lat == 53.801


def test_the_ingest_process_replays_what_the_web_process_answered(token):
    first = post_with(token, {"lat": 53.80, "lng": -1.55}, HTTP_IDEMPOTENCY_KEY="k")
    raw = json.dumps({"lat": 53.80, "lng": -1.55}).encode()
    environ = {
        "REQUEST_METHOD": "POST",
        "PATH_INFO": URL,
        "HTTP_AUTHORIZATION": f"Token {token}",
        "HTTP_IDEMPOTENCY_KEY": "k",
        "CONTENT_TYPE": "application/json",
        "CONTENT_LENGTH": str(len(raw)),
        "wsgi.input": io.BytesIO(raw),
    }
    seen = {}
    body = b"".join(wsgi_call(environ, lambda s, h: seen.update(status=s, headers=dict(h))))
    assert (seen["status"], body) == ("200 OK", first.content)
    assert seen["headers"]["Idempotent-Replayed"] == "true"


def test_the_same_key_with_another_body_is_422(token):
    post_with(token, {"lat": 53.80, "lng": -1.55}, HTTP_IDEMPOTENCY_KEY="report-1")
    response = post_with(token, {"lat": 53.90, "lng": -1.55}, HTTP_IDEMPOTENCY_KEY="report-1")
    assert response.status_code == 422
    assert response["Content-Type"] == "application/problem+json"
    assert response.json()["code"] == "idempotency_key_reuse"


def test_a_key_belongs_to_its_driver(token):
    other = Token.objects.create(user=driver_at(LEEDS, user=UserFactory()).user).key
    post_with(token, {"lat": 53.80, "lng": -1.55}, HTTP_IDEMPOTENCY_KEY="report-1")
    response = post_with(other, {"lat": 53.90, "lng": -1.55}, HTTP_IDEMPOTENCY_KEY="report-1")
    assert response.status_code == 200
    assert "Idempotent-Replayed" not in response
    assert response.json()["lat"] == 53.90


def test_an_answer_that_invites_a_retry_is_not_kept_for_the_key(token, driver, settings):
    if settings.POSITIONS_BACKEND != "redis":
        pytest.skip("the database backend has no separate store")
    store = settings.POSITIONS_REDIS_URL
    settings.POSITIONS_REDIS_URL = "redis://127.0.0.1:6479/0"  # the store is down
    down = post_with(token, {"lat": 53.80, "lng": -1.55}, HTTP_IDEMPOTENCY_KEY="report-1")
    settings.POSITIONS_REDIS_URL = store
    retried = post_with(token, {"lat": 53.80, "lng": -1.55}, HTTP_IDEMPOTENCY_KEY="report-1")
    assert down.status_code == 503
    assert retried.status_code == 200
    assert "Idempotent-Replayed" not in retried
    assert position_latest(driver.pk).lat == 53.80


def test_a_key_longer_than_255_characters_is_400(token):
    response = post_with(token, {"lat": 53.80, "lng": -1.55}, HTTP_IDEMPOTENCY_KEY="k" * 256)
    assert response.status_code == 400
    assert "Idempotency-Key" in response.json()["errors"]


# --- issue 37: the fix's clock and the login behind the token ----------------------------


def test_a_fix_ahead_of_the_servers_clock_is_refused_past_the_allowance(token, driver):
    now = timezone.now()
    # the phone's clock may run a little fast: within FIX_MAX_AHEAD it is taken...
    within = iso(now + FIX_MAX_AHEAD - timedelta(seconds=30))
    response = post(token, {"lat": 53.8, "lng": -1.55, "at": within})
    assert response.status_code == 200, response.content
    # ...beyond it, alone or in a batch, it is 400 naming the time, and nothing is recorded
    ahead = iso(now + FIX_MAX_AHEAD + timedelta(seconds=30))
    for body, field in (
        ({"lat": 53.9, "lng": -1.55, "at": ahead}, "at"),
        ({"fixes": [{"lat": 53.9, "lng": -1.55, "at": ahead}]}, "fixes[0].at"),
    ):
        response = post(token, body)
        assert response.status_code == 400, response.content
        assert field in response.json()["errors"]
    assert position_latest(driver.pk).lat == pytest.approx(53.8)


def test_the_token_of_a_deactivated_login_is_401_on_both_doors(token, driver):
    assert post(token, {"lat": 53.8, "lng": -1.55}).status_code == 200
    type(driver.user).objects.filter(pk=driver.user.pk).update(is_active=False)
    response = post(token, {"lat": 53.9, "lng": -1.55})
    assert response.status_code == 401
    assert response.json()["code"] == "unauthenticated"
    assert post_wsgi(token, {"lat": 53.9, "lng": -1.55})[0] == 401
    assert position_latest(driver.pk).lat == pytest.approx(53.8)


# --- issue 37: the fix's time and shape, as the ingest checks them ------------------------

NOW = dt.datetime(2026, 11, 25, 14, 5, 9, tzinfo=UTC)
TIME_HINT = "Give an ISO 8601 time, e.g. 2026-11-25T14:05:09Z."
CLOCK_HINT = "More than a day old, or ahead of the server's clock: check the clock."


def test_a_fix_time_naming_no_offset_is_utc_and_one_naming_an_offset_keeps_it():
    assert fix_time("2026-11-25T14:00:00", now=NOW) == dt.datetime(2026, 11, 25, 14, tzinfo=UTC)
    assert fix_time("2026-11-25T14:00:00+01:00", now=NOW) == dt.datetime(
        2026, 11, 25, 13, tzinfo=UTC
    )


@pytest.mark.parametrize("value", [None, 1764079509, "2026-11-25T14:00:00.00000000000000+00:00+"])
def test_a_fix_time_is_a_string_of_at_most_forty_characters(value):
    with pytest.raises(ValueError, match=f"^{re.escape(TIME_HINT)}$"):
        fix_time(value, now=NOW)


def test_a_forty_character_fix_time_is_read():
    value = "2026-11-25T14:00:00.00000000000000+00:00"
    assert len(value) == 40
    assert fix_time(value, now=NOW) == dt.datetime(2026, 11, 25, 14, tzinfo=UTC)


def test_a_fix_time_may_be_a_day_old_or_five_minutes_ahead_and_no_more():
    assert fix_time_check(NOW - FIX_MAX_AGE, now=NOW) == NOW - FIX_MAX_AGE
    assert fix_time_check(NOW + FIX_MAX_AHEAD, now=NOW) == NOW + FIX_MAX_AHEAD
    tick = dt.timedelta(microseconds=1)
    for at in (NOW - FIX_MAX_AGE - tick, NOW + FIX_MAX_AHEAD + tick):
        with pytest.raises(ValueError, match=f"^{re.escape(CLOCK_HINT)}$"):
            fix_time_check(at, now=NOW)


@pytest.mark.parametrize(("prefix", "field"), [("", "non_field_errors"), ("fixes.2", "fixes.2")])
def test_a_fix_that_is_not_an_object_is_named_where_it_is(prefix, field):
    with pytest.raises(DomainError) as refused:
        fix_parse([53.8, -1.55], prefix=prefix, now=NOW, need_time=False)
    assert refused.value.code == "invalid_input"
    assert refused.value.errors == {field: ["Expected a JSON object."]}


# --- issue 37: every check of fix_parse names its field and says what is wrong -----------


def parse_errors(item, *, prefix="", need_time=False) -> dict[str, list[str]]:
    with pytest.raises(DomainError) as refused:
        fix_parse(item, prefix=prefix, now=NOW, need_time=need_time)
    assert refused.value.code == "invalid_input"
    assert refused.value.detail == "The position has invalid fields; see errors."
    return refused.value.errors


def test_a_fix_without_its_position_names_both_numbers():
    assert parse_errors({}) == {
        "lat": ["This field is required."],
        "lng": ["This field is required."],
    }
    assert parse_errors({"lat": None, "lng": 1}, prefix="fixes[3]") == {
        "fixes[3].lat": ["This field is required."]
    }


def test_a_fix_names_its_unknown_fields_cut_to_a_hundred_characters():
    long = "k" * 150
    assert parse_errors({"lat": 1, "lng": 1, "speedo": 3, long: 1, 7: 1}, prefix="fixes[0]") == {
        "fixes[0].speedo": ["Unknown field."],
        f"fixes[0].{long}"[:100]: ["Unknown field."],
        "fixes[0].7": ["Unknown field."],
    }


@pytest.mark.parametrize("value", [True, False, "53.8", [53.8], {"value": 53.8}])
def test_a_number_given_as_anything_else_is_refused(value):
    assert parse_errors({"lat": value, "lng": 1, "speed": value}) == {
        "lat": ["A valid number is required."],
        "speed": ["A valid number is required."],
    }


@pytest.mark.parametrize(
    ("key", "value", "message"),
    [
        ("lat", 85.06, "Ensure this value is between -85.0511 and 85.0511."),
        ("lat", -85.06, "Ensure this value is between -85.0511 and 85.0511."),
        ("lng", 180.001, "Ensure this value is between -180 and 180."),
        ("lng", -180.001, "Ensure this value is between -180 and 180."),
        ("heading", -0.001, "Ensure this value is between 0 and 360."),
        ("heading", 360.001, "Ensure this value is between 0 and 360."),
        ("speed", -1, "Ensure this value is between 0 and 150."),
        ("speed", 150.5, "Ensure this value is between 0 and 150."),
        ("accuracy", -1, "Ensure this value is between 0 and 100000."),
        ("accuracy", 100_001, "Ensure this value is between 0 and 100000."),
        ("speed", float("nan"), "Ensure this value is between 0 and 150."),
        ("accuracy", float("inf"), "Ensure this value is between 0 and 100000."),
    ],
)
def test_a_number_out_of_its_range_is_refused_with_the_range(key, value, message):
    item = {"lat": 53.8, "lng": -1.55} | {key: value}
    assert parse_errors(item, prefix="fixes[1]") == {f"fixes[1].{key}": [message]}


def test_a_fix_at_the_ends_of_every_range_is_taken_as_floats_at_now():
    edges = {"lat": 85.05112878, "lng": -180, "heading": 360, "speed": 150, "accuracy": 0}
    fix = fix_parse(edges, prefix="", now=NOW, need_time=False)
    assert fix == Fix(lat=85.05112878, lng=-180.0, at=NOW, heading=360.0, speed=150.0, accuracy=0.0)
    assert type(fix.lng) is float
    low = {"lat": -85.05112878, "lng": 180, "heading": 0, "speed": 0, "accuracy": 100_000}
    assert fix_parse(low, prefix="", now=NOW, need_time=False) == Fix(
        lat=-85.05112878, lng=180.0, at=NOW, heading=0.0, speed=0.0, accuracy=100_000.0
    )


def test_a_fix_time_is_read_when_given_and_required_in_a_batch():
    given = {"lat": 1, "lng": 2, "at": "2026-11-25T14:00:00Z"}
    assert fix_parse(given, prefix="", now=NOW, need_time=False).at == dt.datetime(
        2026, 11, 25, 14, tzinfo=UTC
    )
    assert parse_errors({"lat": 1, "lng": 2}, prefix="fixes[0]", need_time=True) == {
        "fixes[0].at": [TIME_HINT]
    }
    assert parse_errors({"lat": 1, "lng": 2, "at": "2001-01-01T00:00:00Z"}) == {"at": [CLOCK_HINT]}
    assert parse_errors({"lat": 99, "lng": 200}) == {
        "lat": ["Ensure this value is between -85.0511 and 85.0511."],
        "lng": ["Ensure this value is between -180 and 180."],
    }
    assert parse_errors({"lat": 99, "lng": 2, "at": 5}, prefix="fixes[2]") == {
        "fixes[2].lat": ["Ensure this value is between -85.0511 and 85.0511."],
        "fixes[2].at": [TIME_HINT],
    }
