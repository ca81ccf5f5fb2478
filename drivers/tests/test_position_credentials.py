"""Who is reporting a position (drivers.positions.credentials, the ingest's Authorization
header): every refusal says why, a driver's credential carries their active vehicles'
classes and their token's end, and a remembered token is the one that was read (issue 37:
the survivors of `make mutate FAMILY=ingest`)."""

from __future__ import annotations

import datetime as dt

import pytest
import time_machine
from django.utils import timezone
from rest_framework.authtoken.models import Token

from core.errors import DomainError
from core.testing.places import LEEDS
from drivers.api.ingest import location_credential
from drivers.positions.credentials import app_token_credential
from drivers.tests.factories import UserFactory, VehicleFactory, driver_at

pytestmark = pytest.mark.django_db

SEND_A_TOKEN = "Send the driver app's token: 'Token <token>'."


def refused(check) -> DomainError:
    with pytest.raises(DomainError) as raised:
        check()
    assert raised.value.code == "unauthenticated"
    return raised.value


@pytest.fixture
def driver():
    return driver_at(LEEDS, user=UserFactory())


@pytest.fixture
def token(driver) -> Token:
    return Token.objects.create(user=driver.user)


@pytest.mark.parametrize(
    "authorization", [None, "", "Token", "Basic abc", "Token a b", "Tokens abc", "abc"]
)
def test_an_authorization_that_is_not_token_or_bearer_and_one_word_asks_for_the_token(
    authorization, django_assert_num_queries
):
    with django_assert_num_queries(0):
        assert refused(lambda: location_credential(authorization, address="192.0.2.1")).detail == (
            SEND_A_TOKEN
        )


@pytest.mark.parametrize("keyword", ["Token", "bearer", "BEARER"])
def test_either_keyword_in_any_case_names_the_drivers_token(keyword, token, driver):
    credential = location_credential(f"{keyword} {token.key}", address="192.0.2.1")
    assert credential.driver_id == driver.pk


def test_an_unknown_token_is_invalid():
    assert refused(lambda: app_token_credential("0" * 40)).detail == "Invalid token."


def test_an_empty_or_overlong_token_is_refused_unread(django_assert_num_queries):
    for key in ("", "k" * 129):
        with django_assert_num_queries(0):
            assert refused(lambda key=key: app_token_credential(key)).detail == "Invalid token."
    # 128 characters is still a token the database is asked about
    with django_assert_num_queries(1):
        assert refused(lambda: app_token_credential("k" * 128)).detail == "Invalid token."


def test_the_credential_carries_the_active_vehicles_classes_and_the_tokens_end(driver, token):
    VehicleFactory(driver=driver, vehicle_class="mpv", active=False)
    VehicleFactory(driver=driver, vehicle_class="estate")
    credential = app_token_credential(token.key)
    assert credential.driver_id == driver.pk
    assert credential.vehicle_classes == ("estate", "saloon")
    assert credential.device_id == ""
    assert credential.expires_at == token.created + dt.timedelta(hours=720)


def test_a_token_ends_at_the_instant_its_age_is_reached(token, driver):
    end = token.created + dt.timedelta(hours=720)
    with time_machine.travel(end - dt.timedelta(microseconds=1), tick=False):
        assert app_token_credential(token.key).driver_id == driver.pk
    with time_machine.travel(end, tick=False):
        assert refused(lambda: app_token_credential(token.key)).detail == (
            "Token expired: log in again."
        )


def test_a_remembered_token_is_remembered_as_its_own_driver(settings, token, driver):
    settings.POSITIONS_TOKEN_CACHE_SECONDS = 60
    other = driver_at(LEEDS, user=UserFactory())
    other_token = Token.objects.create(user=other.user)
    assert app_token_credential(token.key).driver_id == driver.pk
    assert app_token_credential(other_token.key).driver_id == other.pk
    assert app_token_credential(token.key).driver_id == driver.pk
    assert timezone.now() < app_token_credential(token.key).expires_at
