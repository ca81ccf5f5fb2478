"""Positions are checked for plausibility (issue 35): the speed implied between a driver's
consecutive fixes is at most POSITIONS_MAX_PLAUSIBLE_SPEED_KMH; a fix beyond it is 422
``position_implausible`` and nothing of the report is stored, so the arrival and no-show
rules (which judge position_latest) never see it."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest
from django.utils import timezone
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from core.testing.places import LEEDS
from drivers.positions import position_latest
from drivers.tests.factories import UserFactory, driver_at
from drivers.tests.test_ingest import post_wsgi

pytestmark = pytest.mark.django_db

URL = "/api/public/v1/driver/location"
# Leeds station, and 272 km south-east of it (near Cambridge): the jump.
FAR_LAT, FAR_LNG = 52.2, 0.12


@pytest.fixture
def driver():
    return driver_at(LEEDS, user=UserFactory())


@pytest.fixture
def token(driver):
    return Token.objects.create(user=driver.user).key


def iso(moment) -> str:
    return moment.isoformat().replace("+00:00", "Z")


def post(token, body):
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    return client.post(URL, data=json.dumps(body), content_type="application/json")


def test_a_272_km_jump_within_a_second_is_422_and_not_stored(token, driver):
    now = timezone.now()
    first = {"lat": LEEDS[0], "lng": LEEDS[1], "at": iso(now - timedelta(seconds=1))}
    assert post(token, first).status_code == 200
    response = post(token, {"lat": FAR_LAT, "lng": FAR_LNG, "at": iso(now)})
    assert response.status_code == 422, response.content
    assert response.json()["code"] == "position_implausible"
    assert response["Content-Type"] == "application/problem+json"
    assert position_latest(driver.pk).lat == pytest.approx(LEEDS[0])


def test_the_ingest_process_refuses_it_alike(token, driver):
    now = timezone.now()
    first = {"lat": LEEDS[0], "lng": LEEDS[1], "at": iso(now - timedelta(seconds=1))}
    assert post_wsgi(token, first)[0] == 200
    status, headers, body = post_wsgi(token, {"lat": FAR_LAT, "lng": FAR_LNG, "at": iso(now)})
    assert status == 422
    assert json.loads(body)["code"] == "position_implausible"
    assert position_latest(driver.pk).lat == pytest.approx(LEEDS[0])


def test_a_jump_inside_a_buffered_batch_refuses_the_whole_batch(token, driver):
    now = timezone.now()
    fixes = [
        {"lat": LEEDS[0], "lng": LEEDS[1], "at": iso(now - timedelta(seconds=2))},
        {"lat": FAR_LAT, "lng": FAR_LNG, "at": iso(now - timedelta(seconds=1))},
        {"lat": LEEDS[0], "lng": LEEDS[1], "at": iso(now)},
    ]
    response = post(token, {"fixes": fixes})
    assert response.status_code == 422
    assert position_latest(driver.pk) is None


def test_a_motorway_drive_and_a_parked_phones_wander_are_taken(token, driver):
    now = timezone.now()
    start = now - timedelta(seconds=20)
    # 70 mph is about 31 m/s: 0.0028 degrees of latitude a 10 s step.
    fixes = [
        {
            "lat": LEEDS[0] + 0.0028 * step,
            "lng": LEEDS[1],
            "at": iso(start + timedelta(seconds=10 * step)),
        }
        for step in range(3)
    ]
    assert post(token, {"fixes": fixes}).status_code == 200
    # GPS wander: 150 m at the same instant is error, not speed.
    wander = {"lat": LEEDS[0] + 0.0056 + 0.00135, "lng": LEEDS[1], "at": iso(now)}
    assert post(token, wander).status_code == 200
    assert position_latest(driver.pk).lat == pytest.approx(LEEDS[0] + 0.0056 + 0.00135)


def test_a_far_fix_is_taken_once_enough_time_has_passed(token, driver, settings):
    """The limit is a speed, not a distance: the car may have driven there."""
    now = timezone.now()
    hours = 272 / settings.POSITIONS_MAX_PLAUSIBLE_SPEED_KMH + 0.1
    first = {"lat": LEEDS[0], "lng": LEEDS[1], "at": iso(now - timedelta(hours=hours))}
    assert post(token, first).status_code == 200
    assert post(token, {"lat": FAR_LAT, "lng": FAR_LNG, "at": iso(now)}).status_code == 200
