"""The driver app's tokens: new at each login, ended by a password change or a log-out,
and expiring (contract 6, issue 24)."""

from __future__ import annotations

import datetime as dt

import pytest
import time_machine
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from core.testing.places import LEEDS
from drivers.tests.factories import UserFactory, driver_at
from drivers.tokens import driver_token_issue, driver_tokens_end

pytestmark = pytest.mark.django_db

PASSWORD = "correct horse battery"


@pytest.fixture
def driver():
    driver = driver_at(LEEDS)
    driver.user = UserFactory(username="asha@example.co.uk")
    driver.save(update_fields=["user"])
    return driver


def login() -> str:
    response = APIClient().post(
        "/api/public/v1/driver/login",
        {"username": "asha@example.co.uk", "password": PASSWORD},
        format="json",
    )
    assert response.status_code == 200, response.content
    return response.json()["token"]


def feed(token: str) -> int:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    return client.get("/api/public/v1/jobs").status_code


def test_each_login_issues_a_new_token_and_ends_the_last(driver):
    """Finding: "logging in again returns the same token." """
    first = login()
    second = login()
    assert first != second
    assert (feed(first), feed(second)) == (401, 200)


def test_a_password_change_ends_the_drivers_tokens(driver):
    """Finding: "Driver tokens never expire and survive a password change"."""
    token = login()
    driver.user.set_password("a new long passphrase")
    driver.user.save()
    assert feed(token) == 401


def test_saving_the_login_without_a_new_password_keeps_the_token(driver):
    token = login()
    driver.user.first_name = "Asha"
    driver.user.save()
    assert feed(token) == 200


def test_logging_out_of_the_app_ends_its_token(driver):
    token = login()
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    assert client.post("/api/public/v1/driver/logout").status_code == 204
    assert feed(token) == 401


def test_logging_out_of_the_driver_pages_ends_the_app_token(driver, client):
    token = login()
    client.force_login(driver.user)
    client.post("/driver/logout/")
    assert feed(token) == 401


def test_a_token_expires_after_the_set_age(driver, settings):
    """Finding: "Driver tokens never expire"."""
    settings.DRIVER_TOKEN_MAX_AGE_HOURS = 24
    token = login()
    assert feed(token) == 200
    with time_machine.travel(timezone.now() + dt.timedelta(hours=24, seconds=1)):
        assert feed(token) == 401


def report(token: str) -> int:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    body = {"lat": 53.7955, "lng": -1.5491}
    return client.post("/api/public/v1/driver/location", body, format="json").status_code


def test_the_position_report_honours_the_tokens_age_even_while_it_is_remembered(driver, settings):
    """The position path checks tokens from a per-process cache (drivers.positions
    .credentials): a token remembered there must still end at its age."""
    settings.DRIVER_TOKEN_MAX_AGE_HOURS = 24
    settings.POSITIONS_TOKEN_CACHE_SECONDS = 3600 * 48
    token = login()
    assert report(token) == 200
    with time_machine.travel(timezone.now() + dt.timedelta(hours=24, seconds=1)):
        assert report(token) == 401


def test_logging_out_ends_the_token_for_position_reports_too(driver, settings):
    settings.POSITIONS_TOKEN_CACHE_SECONDS = 3600
    token = login()
    assert report(token) == 200
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    assert client.post("/api/public/v1/driver/logout").status_code == 204
    assert report(token) == 401


def test_a_token_ends_at_its_expiry_instant_exactly(driver):
    """Issue 37: with the production age (720 h, no override) a token works until the
    microsecond before ``created + 720 h`` and not at that instant, in the app's API and
    on the position path alike."""
    from rest_framework.authtoken.models import Token

    token = login()
    created = Token.objects.get(key=token).created
    end = created + dt.timedelta(hours=720)
    with time_machine.travel(end - dt.timedelta(microseconds=1), tick=False):
        assert (feed(token), report(token)) == (200, 200)
    with time_machine.travel(end, tick=False):
        assert (feed(token), report(token)) == (401, 401)


def test_a_login_locks_its_own_row_while_its_token_is_replaced(driver):
    """driver_token_issue's guarantee: concurrent logins of one driver queue on the login's
    row, so each ends with one token (the race itself: a PostgreSQL-only test)."""
    with CaptureQueriesContext(connection) as queries:
        token = driver_token_issue(user=driver.user)
    reads = [q["sql"] for q in queries.captured_queries if 'FROM "auth_user"' in q["sql"]]
    assert len(reads) == 1
    assert f'"auth_user"."id" = {driver.user.pk}' in reads[0]
    if connection.features.has_select_for_update:
        assert "FOR UPDATE" in reads[0]
    assert list(Token.objects.filter(user=driver.user)) == [token]


def test_ending_the_tokens_of_no_login_ends_nothing(driver):
    """A log-out without a login (user_logged_out sends None) or of an unsaved user."""
    token = driver_token_issue(user=driver.user)
    assert driver_tokens_end(user=None) == 0
    assert driver_tokens_end(user=UserFactory.build()) == 0
    assert Token.objects.filter(pk=token.pk).exists()
    assert driver_tokens_end(user=driver.user) == 1
    assert not Token.objects.filter(pk=token.pk).exists()
