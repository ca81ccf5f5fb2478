"""Contract 1.1 (issue 35): a NUL byte or another control character in a path, query,
form or JSON string is 400 invalid_input before any lookup, OAuth's door included. Each
of these was a 500."""

from __future__ import annotations

import json

import pytest

pytestmark = pytest.mark.django_db


def _assert_invalid_input(response, where: str) -> None:
    assert response.status_code == 400, response.content[:300]
    assert response["Content-Type"] == "application/problem+json"
    body = response.json()
    assert body["code"] == "invalid_input"
    assert where in body["errors"]


@pytest.mark.parametrize(
    "path",
    [
        "/api/public/v1/booking/%00?email=someone@example.co.uk",
        "/passenger/confirm/%00/",
        "/api/public/v1/jobs/%00",
        "/api/public/v1/booking/ABC%7F",
    ],
)
def test_a_control_character_in_a_path_is_400(client, path):
    _assert_invalid_input(client.get(path), "path")


def test_a_nul_in_a_query_is_400(client):
    _assert_invalid_input(client.get("/api/public/v1/places?q=Lee%00ds"), "query")


def test_a_nul_in_the_oauth_token_form_is_400(client):
    response = client.post(
        "/oauth/token/",
        "grant_type=authorization_code&client_id=%00",
        content_type="application/x-www-form-urlencoded",
    )
    _assert_invalid_input(response, "body")


def test_an_escaped_nul_in_a_json_string_is_400(client):
    body = json.dumps({"pickup": "Leeds\u0000station", "dropoff": "York", "passengers": 1})
    response = client.post("/api/public/v1/quote", body, content_type="application/json")
    _assert_invalid_input(response, "body")


def test_tab_and_newline_in_a_json_string_pass_the_screen(client):
    body = json.dumps({"pickup": "Leeds\tstation\n", "dropoff": "York", "passengers": 1})
    response = client.post("/api/public/v1/quote", body, content_type="application/json")
    assert (
        response.status_code != 400
        or response.json()["code"] != "invalid_input"
        or ("body" not in response.json().get("errors", {}))
    )
