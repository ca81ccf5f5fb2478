"""A token that ends stops working on the position ingest at once (contract 6, issue 35
finding 6): the ingest remembers a token for POSITIONS_TOKEN_CACHE_SECONDS (120 s), and a
log-out, a password change or a deactivation in another process (web) used to reach it
only when that expired."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.conf import settings as django_settings
from django.db import connection
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from core.testing.places import LEEDS
from drivers.positions import credentials, position_latest
from drivers.positions.credentials import tracker_device_register
from drivers.tests.factories import UserFactory, driver_at
from drivers.tests.ingest_client import wsgi_call

ROOT = Path(__file__).resolve().parents[2]
URL = "/api/public/v1/driver/location"


@pytest.fixture(autouse=True)
def remembered(settings):
    settings.POSITIONS_TOKEN_CACHE_SECONDS = 120
    credentials.position_credentials_forget()
    yield
    credentials.position_credentials_forget()


@pytest.fixture
def another_process(monkeypatch):
    """What happens next happens in another process (the web process): the signal that
    empties this process's memory of tokens is that process's, not the ingest's."""
    monkeypatch.setattr(credentials._app_tokens, "clear", lambda: None)
    monkeypatch.setattr(credentials._device_tokens, "clear", lambda: None)


@pytest.fixture
def driver():
    return driver_at(LEEDS, user=UserFactory())


@pytest.fixture
def token(driver):
    return Token.objects.create(user=driver.user).key


def ingest_report(token: str, lat: float) -> int:
    """A report to the ingest process's own application (granian serves it under ASGI
    through the same WSGI callable, drivers.api.ingest_asgi)."""
    raw = json.dumps({"lat": lat, "lng": -1.55}).encode()
    environ = {
        "REQUEST_METHOD": "POST",
        "PATH_INFO": URL,
        "HTTP_AUTHORIZATION": f"Token {token}",
        "CONTENT_TYPE": "application/json",
        "CONTENT_LENGTH": str(len(raw)),
        "wsgi.input": io.BytesIO(raw),
    }
    seen = {}

    def start_response(status, headers):
        seen["status"] = int(status.split()[0])

    b"".join(wsgi_call(environ, start_response))
    return seen["status"]


@pytest.mark.django_db
def test_a_log_out_in_the_web_process_ends_the_token_on_the_ingest_at_once(
    token, driver, another_process
):
    assert ingest_report(token, 53.80) == 200  # remembered by the ingest
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    assert client.post("/api/public/v1/driver/logout").status_code == 204
    assert ingest_report(token, 53.90) == 401
    assert position_latest(driver.pk).lat == pytest.approx(53.80)


@pytest.mark.django_db
def test_a_password_change_elsewhere_ends_the_token_on_the_ingest_at_once(
    token, driver, another_process
):
    assert ingest_report(token, 53.80) == 200
    user = driver.user
    user.set_password("a new horse battery staple")
    user.save()
    assert ingest_report(token, 53.90) == 401
    assert position_latest(driver.pk).lat == pytest.approx(53.80)


@pytest.mark.django_db
def test_a_login_deactivated_elsewhere_ends_the_token_on_the_ingest_at_once(
    token, driver, another_process
):
    assert ingest_report(token, 53.80) == 200
    user = driver.user
    user.is_active = False
    user.save()  # as the back office's user form saves it
    assert ingest_report(token, 53.90) == 401
    assert not Token.objects.filter(key=token).exists()


@pytest.mark.django_db
def test_a_deactivated_logins_tracker_stops_reporting_at_once(driver, another_process):
    _, device_token = tracker_device_register(driver=driver, device_id="car-7")
    credential = credentials.device_token_credential(device_token, device_id="car-7")
    assert credential.driver_id == driver.pk
    driver.user.is_active = False
    driver.user.save()
    with pytest.raises(credentials.DomainError) as refused:
        credentials.device_token_credential(device_token, device_id="car-7")
    assert refused.value.code == "unauthenticated"


@pytest.mark.django_db
def test_a_token_that_did_not_end_is_still_taken_from_memory(
    token, driver, django_assert_num_queries
):
    """The check costs the remembered path no database read."""
    assert ingest_report(token, 53.80) == 200
    with django_assert_num_queries(0):
        assert credentials.app_token_credential(token).driver_id == driver.pk


def _database_url() -> str:
    """This test database as the other process reaches it: the same PostgreSQL database,
    or the same SQLite file (config.settings.test tests on a file, never in memory)."""
    database = connection.settings_dict
    if connection.vendor == "sqlite":
        return f"sqlite:///{Path(database['NAME']).resolve()}"
    return (
        f"postgres://{database['USER']}@{database['HOST'] or '127.0.0.1'}:"
        f"{database['PORT'] or 5432}/{database['NAME']}"
    )


# Without Redis each process has its own LocMemCache, so the revocation marker the other
# process writes cannot reach this one: the feature is the shared cache's (the module
# docstring of drivers.positions.revocations), and production runs on Redis.
@pytest.mark.skipif(
    not django_settings.REDIS_URL,
    reason="a revocation reaches another process through the shared cache, Redis",
)
@pytest.mark.django_db(transaction=True)
def test_a_log_out_in_a_real_other_process_reaches_this_one():
    """Two processes for real: this one remembers the token; another Python process,
    with the same settings, database and cache, logs the driver out through Django."""
    driver = driver_at(LEEDS, user=UserFactory())
    token = Token.objects.create(user=driver.user).key
    assert ingest_report(token, 53.80) == 200
    env = os.environ | {
        "DJANGO_SETTINGS_MODULE": "config.settings.test",
        "DATABASE_URL": _database_url(),
        "POSITIONS_TOKEN_CACHE_SECONDS": "120",
    }
    script = (
        "import django; django.setup()\n"
        "from rest_framework.test import APIClient\n"
        "c = APIClient(); c.credentials(HTTP_AUTHORIZATION='Token ' + __import__('sys').argv[1])\n"
        "print(c.post('/api/public/v1/driver/logout').status_code)\n"
    )
    done = subprocess.run(  # noqa: S603 - this interpreter, a fixed script
        [sys.executable, "-c", script, token],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.stdout.strip().endswith("204"), done.stderr[-2000:]
    assert ingest_report(token, 53.90) == 401
