"""Docs that work when tried (issue 40): every request example in the served OpenAPI
document posts as it stands and is answered 2xx, the way Swagger UI's "Try it out" sends
it on ``make demo`` (anonymously where the operation allows it, else with an approved
partner account's key in the scheme the document names first)."""

from __future__ import annotations

import copy
import datetime as dt

import pytest
from django.urls import reverse
from django.utils import timezone
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from api.schema import DEPART_TOMORROW
from core.testing.places import LEEDS
from drivers.tests.factories import UserFactory, driver_at
from partners.models import Account
from partners.services.accounts import account_create

pytestmark = pytest.mark.django_db

# Examples about a booking the caller already holds (a flight's pickups): not tried here.
NEEDS_A_BOOKING = {"/api/public/v1/flights/status"}


def _document(client) -> dict:
    response = client.get(reverse("openapi"), HTTP_ACCEPT="application/json")
    assert response.status_code == 200
    return response.json()


def _examples(document: dict):
    """(method, path, operation, example name, value) of every request example of an
    operation whose path needs no parameter."""
    for path, item in document["paths"].items():
        for method, operation in item.items():
            if not isinstance(operation, dict) or "requestBody" not in operation:
                continue
            content = operation["requestBody"]["content"].get("application/json", {})
            for name, example in content.get("examples", {}).items():
                yield method, path, operation, name, example["value"]


def test_the_demo_keys_scheme_is_named_first_and_says_so(client):
    schemes = _document(client)["components"]["securitySchemes"]
    first = next(iter(schemes))
    assert first == "ApiKeyHeader"
    assert "make demo" in schemes[first]["description"]


def test_no_example_departs_in_the_past(client):
    text = str(_document(client))
    assert DEPART_TOMORROW not in text
    for _method, _path, _operation, _name, value in _examples(_document(client)):
        for key in ("departAt", "depart_at"):
            if isinstance(value, dict) and key in value:
                assert dt.datetime.fromisoformat(value[key]) > timezone.now()


def test_every_public_booking_example_posts_successfully(client, tariffs):
    document = _document(client)
    keys = {
        kind: account_create(kind=kind, name=f"Docs Reader {kind}", approved=True)[1]
        for kind in (Account.Kind.PARTNER, Account.Kind.OPERATOR)
    }
    driver_token = Token.objects.create(user=driver_at(LEEDS, user=UserFactory()).user).key
    tried, failed = [], []
    for method, path, operation, name, value in _examples(document):
        if "{" in path or method != "post" or path in NEEDS_A_BOOKING:
            continue  # a path parameter (a booking, a driver's job) the reader fills in
        names = {scheme for requirement in operation.get("security", []) for scheme in requirement}
        api = APIClient()
        if names & {"tokenAuth", "driverPositionTokenAuth"}:  # the app's token from login
            api.credentials(HTTP_AUTHORIZATION=f"Token {driver_token}")
        elif names and {} not in operation.get("security", []) and "ApiKeyHeader" not in names:
            continue
        if "ApiKeyHeader" in names:
            kind = Account.Kind.OPERATOR if "/operator/" in path else Account.Kind.PARTNER
            api.credentials(HTTP_X_SERVICE_AI_KEY=keys[kind])
        body = copy.deepcopy(value)
        if (
            isinstance(body, dict) and "quote_id" in body
        ):  # "the quote_id of a quote you just made", as it says
            made = api.post(
                "/api/public/quotes/estimate",
                document["paths"]["/api/public/quotes/estimate"]["post"]["requestBody"]["content"][
                    "application/json"
                ]["examples"]["StationToAirport"]["value"],
                format="json",
            )
            body["quote_id"] = made.json()["quote_id"]
        response = api.post(path, body, format="json")
        if not 200 <= response.status_code < 300:
            failed.append((path, name, response.status_code, response.content[:300]))
        tried.append(path)
    assert not failed, failed
    for path in (
        "/api/public/v1/quote",
        "/api/public/quotes/estimate",
        "/api/public/v1/booking",
        "/api/public/v1/bookings",
        "/api/public/bookings/instant",
        "/api/public/bookings/create",
        "/api/public/v1/passenger-verify",
        "/api/public/v1/jobs",
        "/api/public/v1/operator/jobs",
        "/api/public/v1/driver/location",
        "/api/public/v1/driver/availability",
    ):
        assert path in tried, path
