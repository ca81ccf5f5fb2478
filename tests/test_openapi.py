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
    "/api/public/v1/tariffs/{tariffId}",
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


def _examples(schema):
    """(where, example value, its schema) for every example in the description."""
    for path, item in schema["paths"].items():
        for method, operation in item.items():
            if not isinstance(operation, dict):
                continue
            bodies = [("request", operation.get("requestBody", {}))]
            bodies += [(f"response {status}", r) for status, r in operation["responses"].items()]
            for what, body in bodies:
                for media_type, content in body.get("content", {}).items():
                    for name, example in content.get("examples", {}).items():
                        where = f"{method.upper()} {path} {what} {media_type} {name}"
                        yield where, example["value"], content["schema"]


def _defaults(node, where="#"):
    """(where, default value, the schema that declares it) for every default."""
    if isinstance(node, dict):
        if "default" in node:
            yield where, node["default"], {k: v for k, v in node.items() if k != "default"}
        for key, value in node.items():
            yield from _defaults(value, f"{where}/{key}")
    elif isinstance(node, list):
        for index, value in enumerate(node):
            yield from _defaults(value, f"{where}/{index}")


def test_every_example_validates_against_its_schema(schema):
    """Issue 13: "The OpenAPI document does not validate as 3.1: an example uses `cash`
    where its schema's enum has `cash_to_driver`." Every example is checked against the
    JSON Schema (2020-12, as OpenAPI 3.1 uses) of the body it illustrates."""
    from jsonschema import Draft202012Validator

    examples = list(_examples(schema))
    assert examples, "the description has no examples to check"
    examples += list(_defaults(schema["paths"])) + list(_defaults(schema["components"]))
    failures = []
    for where, value, body_schema in examples:
        # "#/components/..." references resolve within the schema they sit in.
        rooted = {**body_schema, "components": schema["components"]}
        failures += [
            f"{where}: {e.message}" for e in Draft202012Validator(rooted).iter_errors(value)
        ]
    assert not failures, "\n".join(failures)


def test_key_schemes_are_alternatives_and_anonymous_calls_are_allowed(schema):
    """Issue 13: "Security requirements list the three key headers as one object (all
    required together) with no anonymous alternative." """
    security = schema["paths"]["/api/public/v1/quote"]["post"]["security"]
    assert {"ApiKeyHeader": []} in security
    assert {"BearerKey": []} in security
    assert {} in security
    assert all(len(requirement) <= 1 for requirement in security)


def test_body_size_and_media_type_errors_are_documented(schema):
    """Issue 13: "413 and 415 are returned but not documented." """
    for path, item in schema["paths"].items():
        for method, operation in item.items():
            if isinstance(operation, dict) and "requestBody" in operation:
                assert {"413", "415"} <= set(operation["responses"]), f"{method} {path}"


def test_the_operator_guide_documents_its_errors(schema):
    """Issue 13: "`GET /v1/operator/jobs` documents no 4xx." """
    responses = schema["paths"]["/api/public/v1/operator/jobs"]["get"]["responses"]
    assert {"406", "429"} <= set(responses)
    assert "application/problem+json" in responses["429"]["content"]


def test_the_operator_guide_is_rate_limited_per_client(client, settings):
    settings.RATELIMITS = {**settings.RATELIMITS, "lookup": "2/m"}
    answers = [client.get("/api/public/v1/operator/jobs").status_code for _ in range(3)]
    assert answers == [200, 200, 429]
