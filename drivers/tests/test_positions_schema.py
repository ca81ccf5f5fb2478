"""The OpenAPI description of the two position doors (contract 8, issue 27): the driver
app's report in both its forms, and the OsmAnd path, with their answers."""

from __future__ import annotations

import pytest
from django.conf import settings
from django.test import Client

pytestmark = pytest.mark.django_db


@pytest.fixture(scope="module")
def schema(django_db_blocker):
    with django_db_blocker.unblock():
        response = Client().get("/api/public/openapi.json")
    assert response.status_code == 200
    return response.json()


def component(schema, ref: str) -> dict:
    return schema["components"]["schemas"][ref.rsplit("/", 1)[1]]


def test_the_location_report_is_one_fix_or_a_batch_of_fixes_each_with_its_time(schema):
    operation = schema["paths"]["/api/public/v1/driver/location"]["post"]
    body = operation["requestBody"]["content"]["application/json"]["schema"]
    forms = [component(schema, form["$ref"]) for form in component(schema, body["$ref"])["oneOf"]]
    single, batch = sorted(forms, key=lambda form: "fixes" in form["properties"])
    assert set(single["required"]) == {"lat", "lng"}
    fixes = batch["properties"]["fixes"]
    assert (batch["required"], fixes["minItems"]) == (["fixes"], 1)
    assert fixes["maxItems"] == settings.POSITIONS_BATCH_MAX
    assert "at" in component(schema, fixes["items"]["$ref"])["required"]


def test_the_location_report_documents_its_answers_and_the_idempotency_key(schema):
    operation = schema["paths"]["/api/public/v1/driver/location"]["post"]
    responses = operation["responses"]
    assert {"200", "400", "401", "403", "409", "422", "429", "503"} <= set(responses)
    ok = component(schema, responses["200"]["content"]["application/json"]["schema"]["$ref"])
    assert {"lat", "lng", "heading", "reportedAt", "fixes"} <= set(ok["properties"])
    assert "application/problem+json" in responses["429"]["content"]
    headers = {p["name"] for p in operation["parameters"] if p["in"] == "header"}
    assert "Idempotency-Key" in headers


def test_the_osmand_path_is_described_with_its_parameters_bodies_and_answers(schema):
    path = schema["paths"]["/api/public/v1/osmand/{token}"]
    assert {"get", "post"} <= set(path)
    for operation in (path["get"], path["post"]):
        names = {(p["in"], p["name"]) for p in operation["parameters"]}
        assert {("path", "token"), ("query", "id"), ("query", "lat"), ("query", "lon")} <= names
        assert {"200", "400", "401", "429", "503"} <= set(operation["responses"])
        assert "content" not in operation["responses"]["200"]  # Traccar's empty answer
    bodies = path["post"]["requestBody"]["content"]
    assert "application/x-www-form-urlencoded" in bodies
    traccar_json = component(schema, bodies["application/json"]["schema"]["$ref"])
    assert {"device_id", "location"} <= set(traccar_json["properties"])
