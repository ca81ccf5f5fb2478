"""No body, however malformed, gets a 5xx: it is 400 invalid_body (contract 1)."""

import pytest
from django.test import override_settings

from api.tests.assertions import assert_problem
from partners.models import Account

pytestmark = [
    pytest.mark.django_db,
    pytest.mark.urls("api.tests.urls"),
    pytest.mark.usefixtures("_probe_limits"),
]


@pytest.fixture
def _probe_limits():
    with override_settings(RATELIMITS={"probe": "1000/h"}):
        yield


def post_raw(client, body: bytes | str, **headers):
    client.raise_request_exception = False
    return client.post("/api/probe", data=body, content_type="application/json", **headers)


def test_json_nested_two_thousand_deep_is_400(client):
    """Issue 13: "JSON nested 2,000 deep, 4 KB (`RecursionError`, on every POST)"."""
    body = '{"name": ' + "[" * 2000 + "]" * 2000 + "}"
    assert len(body) < 4100
    body = assert_problem(post_raw(client, body), 400, "invalid_body")
    assert "nested" in body["detail"]


def test_nesting_past_the_limit_but_within_python_recursion_is_400(client):
    body = '{"name": ' + "[" * 40 + "]" * 40 + "}"
    assert_problem(post_raw(client, body), 400, "invalid_body")


def test_same_deep_body_with_an_idempotency_key_is_400_too(client):
    body = '{"name": ' + "[" * 2000 + "]" * 2000 + "}"
    assert_problem(post_raw(client, body, HTTP_IDEMPOTENCY_KEY="k1"), 400, "invalid_body")


def test_lone_surrogates_are_left_to_the_input_serializers():
    # Valid JSON: refused field by field where it lands (400 invalid_input), or as the one
    # rejected job of a batch (contract 4.1), never by the parser for the whole body.
    from io import BytesIO

    from api.parsers import GuardedJSONParser

    parsed = GuardedJSONParser().parse(BytesIO(b'{"jobRef": "X-\\ud800"}'))
    assert parsed == {"jobRef": "X-\ud800"}


@pytest.mark.parametrize(
    "number", ["1e400", "-1e400", "NaN", "Infinity", "-Infinity", "9" * 400, "1." + "0" * 400]
)
def test_non_finite_or_absurd_numbers_are_400(client, number):
    """Contract 1: "huge numbers" never get a 5xx; non-finite or absurdly long ones are 400."""
    assert_problem(post_raw(client, '{"name": ' + number + "}"), 400, "invalid_body")


def test_body_that_is_not_utf8_is_400(client):
    assert_problem(post_raw(client, b'{"name": "\xff\xfe"}'), 400, "invalid_body")


def test_ordinary_json_still_parses(client):
    response = post_raw(client, '{"name": "plain", "n": 12.5, "k": -3, "x": [[{"a": "\u00e9"}]]}')
    assert response.status_code == 201
    assert Account.objects.filter(slug="plain").exists()
