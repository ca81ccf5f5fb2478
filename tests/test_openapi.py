"""The machine-readable description (seed 9, contract 8)."""

import pytest

pytestmark = pytest.mark.django_db

PUBLIC_PATHS = [
    "/api/public/v1/quote",
    "/api/public/quotes/estimate",
    "/api/public/bookings/create",
    "/api/public/bookings/instant",
    "/api/public/v1/booking",
    "/api/public/v1/bookings",
    "/api/public/v1/booking/{ref}",
    "/api/public/v1/passenger-verify",
    "/api/public/v1/jobs",
    "/api/public/v1/operator/jobs",
    "/api/public/hooks/booking-status",
    "/api/public/openapi.json",
]


@pytest.fixture(scope="module")
def schema(django_db_blocker):
    from django.test import Client

    with django_db_blocker.unblock():
        response = Client().get("/api/public/openapi.json")
    assert response.status_code == 200
    assert response["Content-Type"].startswith("application/json")
    return response.json()


def test_version_and_description(schema):
    assert schema["openapi"] == "3.1.0"
    assert schema["info"]["version"] == "1.0.0"
    description = schema["info"]["description"]
    assert "AI agents" in description
    assert "partner platforms" in description
    assert "website" in description


def test_every_connected_domain_is_a_server(schema):
    assert [s["url"] for s in schema["servers"]] == ["https://taxi.example", "https://book.example"]


@pytest.mark.parametrize("path", PUBLIC_PATHS)
def test_public_path_is_described(schema, path):
    assert path in schema["paths"], sorted(schema["paths"])


def test_error_responses_are_problem_json(schema):
    responses = schema["paths"]["/api/public/bookings/create"]["post"]["responses"]
    assert {"200", "400", "404", "410"} <= set(responses)
    assert "application/problem+json" in responses["410"]["content"]


def test_v1_path_serves_the_same_description(client, schema):
    again = client.get("/api/public/v1/openapi.json").json()
    assert again["paths"].keys() == schema["paths"].keys()


def test_schema_validates_as_openapi_31(schema):
    from drf_spectacular.validation import validate_schema

    validate_schema(schema)


def test_human_docs_are_served_locally(client):
    response = client.get("/api/public/docs/")
    assert response.status_code == 200
    assert b"swagger-ui" in response.content.lower()
    assert b"//cdn" not in response.content
