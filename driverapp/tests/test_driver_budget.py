"""The driver's request budget has one home (``drivers.services.driver_request_admit``,
issue 38): every endpoint of the driver app API counts against the same RATELIMIT_DRIVER
per driver, and a login against it per address, with the contract's 429 problem."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from core.testing.places import LEEDS
from drivers.tests.factories import UserFactory, driver_at, driver_client

pytestmark = pytest.mark.django_db


def test_every_driver_endpoint_spends_the_one_budget_of_its_driver(settings):
    settings.RATELIMITS = {**settings.RATELIMITS, "driver": "4/m"}
    driver = driver_at(LEEDS)
    client = driver_client(driver)

    # the feed, the earnings, the subscription and the fare tables each spend one
    spent = [
        client.get(path).status_code
        for path in (
            "/api/public/v1/jobs",
            "/api/public/v1/driver/earnings",
            "/api/public/v1/driver/subscription",
            "/api/public/v1/driver/tariff-submissions",
        )
    ]
    refused = client.post("/api/public/v1/driver/logout")

    assert spent == [200, 200, 200, 200]
    assert refused.status_code == 429
    assert refused.json()["code"] == "rate_limited"
    assert int(refused["Retry-After"]) > 0
    # another driver's budget is its own
    assert driver_client(driver_at(LEEDS)).get("/api/public/v1/jobs").status_code == 200


def test_logins_spend_the_budget_of_their_address(settings):
    settings.RATELIMITS = {**settings.RATELIMITS, "driver": "2/m"}
    user = UserFactory()
    client = APIClient()

    def login(address: str):
        body = {"username": user.username, "password": "wrong"}
        return client.post("/api/public/v1/driver/login", body, format="json", REMOTE_ADDR=address)

    assert [login("192.0.2.7").status_code for _ in range(2)] == [401, 401]
    assert login("192.0.2.7").json()["code"] == "rate_limited"
    assert login("192.0.2.8").status_code == 401
