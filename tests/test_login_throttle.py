"""Logins are throttled per username and address together (contract 6; django-axes,
config.logins): the back office, the driver and operator pages, the driver app's login."""

from __future__ import annotations

import json

import pytest
from django.contrib.auth import get_user_model
from django.test import override_settings

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


@THROTTLED
def test_with_the_cache_down_the_login_throttle_still_locks(client, driver_user, settings):
    """Contract 6: limits that guard a secret never allow when their counter store is
    down. Axes counts in the database, so Redis on a closed port changes nothing."""
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
