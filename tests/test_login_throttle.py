"""Logins are throttled per username and address together (contract 6; django-axes,
config.logins): the back office, the driver and operator pages, the driver app's login."""

from __future__ import annotations

import json

import pytest
from django.contrib.auth import get_user_model
from django.test import override_settings

from config.logins import cool_off_seconds, login_lockout_response, login_not_watched
from core.testing.network import caches_unreachable
from core.testing.places import LEEDS
from drivers.tests.factories import UserFactory, driver_at

pytestmark = [pytest.mark.django_db, pytest.mark.urls("config.urls")]

RIGHT = "correct horse battery"  # UserFactory's password
# The production limit and cool-off (config.settings.base; tests/test_production_defaults.py)
THROTTLED = override_settings(AXES_ENABLED=True)


@pytest.fixture
def driver_user():
    driver = driver_at(LEEDS)
    driver.user = UserFactory(username="asha")
    driver.save(update_fields=["user"])
    return driver.user


@pytest.fixture
def operator_user(make_account):
    from partners.models import OperatorUser

    user = UserFactory(username="asha")
    OperatorUser.objects.create(user=user, account=make_account("operator", name="Own Cars"))
    return user


def api_login(client, password, address="198.51.100.1", username="asha"):
    return client.post(
        "/api/public/v1/driver/login",
        data=json.dumps({"username": username, "password": password}),
        content_type="application/json",
        REMOTE_ADDR=address,
    )


def page_login(path):
    def login(client, password, address="198.51.100.1", username="asha"):
        return client.post(path, {"username": username, "password": password}, REMOTE_ADDR=address)

    return login


@THROTTLED
@pytest.mark.parametrize(
    ("login", "user", "wrong_status", "right_status"),
    [
        (api_login, "driver_user", 401, 200),
        (page_login("/driver/login/"), "driver_user", 200, 302),
        (page_login("/operator/login/"), "operator_user", 200, 302),
    ],
    ids=["driver-app", "driver-page", "operator-page"],
)
def test_forty_wrong_passwords_lock_the_login_out(
    client, request, login, user, wrong_status, right_status
):
    """Finding: "40 wrong passwords in a row on `/driver/login/`, `/operator/login/` and
    `POST /api/public/v1/driver/login` are all answered; the 41st, right, gets in." """
    request.getfixturevalue(user)
    statuses = [login(client, f"guess-{n}").status_code for n in range(40)]
    assert statuses[:9] == [wrong_status] * 9
    assert set(statuses[10:]) == {429}
    locked = login(client, RIGHT)
    assert locked.status_code == 429
    assert 900 <= int(locked["Retry-After"]) <= 3600
    if locked["Content-Type"].startswith("application/problem+json"):
        assert locked.json()["code"] == "rate_limited"
    else:
        assert "Too many failed logins" in locked.content.decode()
    # per username and address together: the same login from elsewhere is not locked
    assert login(client, RIGHT, address="198.51.100.2").status_code == right_status


@THROTTLED
def test_failures_from_one_address_lock_out_no_other_user(client, driver_user):
    """Issue 35: "Lockouts are keyed on the address alone: behind a proxy with
    `TRUSTED_PROXIES` unset, 10 failures by anyone lock every user out for 15 minutes." """
    for n in range(20):
        api_login(client, "wrong", username=f"nobody-{n % 2}")
    assert api_login(client, "wrong", username="nobody-0").status_code == 429
    # asha, behind the same address, is not locked out by them
    assert api_login(client, RIGHT).status_code == 200


def test_with_the_cache_down_the_login_throttle_still_locks(client, driver_user, settings):
    """Contract 6: limits that guard a secret never allow when their counter store is
    down. Axes counts in the database, so Redis on a closed port changes nothing.

    Throttled through the ``settings`` fixture, not ``THROTTLED``: the fixture's changes
    are undone after the decorator's, and would then restore the throttled settings for
    every later test."""
    settings.AXES_ENABLED = True
    caches_unreachable(settings)
    statuses = [api_login(client, f"guess-{n}").status_code for n in range(11)]
    assert statuses[:9] == [401] * 9
    assert set(statuses[10:]) == {429}
    assert api_login(client, RIGHT).status_code == 429


@THROTTLED
def test_a_success_before_the_limit_starts_the_count_again(client, driver_user):
    for _ in range(9):
        api_login(client, "wrong")
    assert api_login(client, RIGHT).status_code == 200
    for _ in range(9):
        assert api_login(client, "wrong").status_code == 401
    assert api_login(client, RIGHT).status_code == 200


@override_settings(AXES_ENABLED=True, AXES_FAILURE_LIMIT=5)
def test_repeated_wrong_admin_passwords_lock_the_client_out(client):
    """Issue 13: "30 wrong admin passwords in a row are all answered"."""
    get_user_model().objects.create_superuser("boss", "boss@example.co.uk", "right-pw")

    def admin_login(password, address="198.51.100.1"):
        return client.post(
            "/admin/login/?next=/admin/",
            {"username": "boss", "password": password},
            REMOTE_ADDR=address,
        )

    statuses = [admin_login(f"guess-{n}").status_code for n in range(30)]
    assert statuses[:4] == [200] * 4  # the form again, with an error
    assert set(statuses[5:]) == {429}
    assert admin_login("right-pw").status_code == 429


# --- issue 37: config.logins itself, at the production cool-off (0.25 h) ------------------

LOCKED_DETAIL = "Too many failed logins: try again in 15 minutes, or reset your password."


def test_the_api_lockout_is_problem_json_with_the_cool_off_in_seconds_and_minutes(rf):
    response = login_lockout_response(rf.post("/api/public/v1/driver/login"))
    assert (response.status_code, response["Retry-After"]) == (429, "900")
    assert response["Content-Type"].startswith("application/problem+json")
    body = json.loads(response.content)
    assert (body["code"], body["detail"], body["retryAfter"]) == (
        "rate_limited",
        LOCKED_DETAIL,
        900,
    )


def test_a_page_lockout_is_the_lock_out_page_with_the_same_figures(rf):
    response = login_lockout_response(rf.post("/driver/login/"), None, {"username": "asha"})
    assert (response.status_code, response["Retry-After"]) == (429, "900")
    assert response["Content-Type"].startswith("text/html")
    page = response.content.decode()
    assert LOCKED_DETAIL in page
    assert "are paused for 15 minutes after repeated wrong passwords" in page


@pytest.mark.parametrize(
    ("hours", "seconds", "minutes"),
    [
        (0.01, 36, 1),  # part of a minute is told as a whole one
        (61 / 3600, 61, 2),  # a minute and a second is two minutes
        (0.5, 1800, 30),
        (1.0, 3600, 60),
        (0.0001, 1, 1),  # under half a second still asks for one second
    ],
)
def test_the_cool_off_is_told_in_whole_seconds_and_minutes_rounded_up(rf, hours, seconds, minutes):
    with override_settings(AXES_COOLOFF_TIME=hours):
        assert cool_off_seconds() == seconds
        response = login_lockout_response(rf.post("/operator/login/"))
    assert response["Retry-After"] == str(seconds)
    assert f"try again in {minutes} minutes," in response.content.decode()


@pytest.mark.parametrize(
    "path",
    ["/admin/login/", "/driver/login/", "/operator/login/", "/api/public/v1/driver/login"],
)
def test_each_login_door_is_watched(rf, path):
    assert login_not_watched(rf.post(path)) is False


@pytest.mark.parametrize(
    "path", ["/driver/logout/", "/api/public/v1/driver/jobs", "/admin/", "/driver/login"]
)
def test_every_other_request_is_left_alone(rf, path):
    assert login_not_watched(rf.post(path)) is True
