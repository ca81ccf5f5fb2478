"""GET /api/public/v1/places (issue 22): suggestions for websites and agents, from the
same service as the landing page's; rate limited; problem JSON on bad input."""

import re
from pathlib import Path

import pytest
from rest_framework.test import APIClient

from api.tests.assertions import assert_problem
from pricing.geocoding import geocoder_get

PLACES = "/api/public/v1/places"

pytestmark = pytest.mark.django_db


def places(**params):
    return APIClient().get(PLACES, params)


def test_suggestions_are_airports_and_terminals_first_and_resolve_back():
    response = places(q="heathrow")
    assert response.status_code == 200, response.content
    found = response.json()["places"]
    assert found[0] == {
        "label": "London Heathrow Airport (LHR)",
        "precision": "airport",
        "kindLabel": "Airport",
        "lat": pytest.approx(51.47, abs=0.01),
        "lng": pytest.approx(-0.46, abs=0.01),
    }
    assert "Heathrow Terminal 5 (LHR)" in [p["label"] for p in found]
    for place in found:
        resolved = geocoder_get().geocode(place["label"])
        assert (round(resolved.lat, 4), round(resolved.lng, 4)) == (
            round(place["lat"], 4),
            round(place["lng"], 4),
        )


def test_a_postcode_is_suggested_as_itself():
    found = places(q="LS1 4DY").json()["places"]
    assert found[0]["precision"] == "postcode"
    assert found[0]["label"] == "LS1 4DY, Leeds (postcode sector LS1 4)"


def test_limit_bounds_the_answer():
    assert len(places(q="new", limit=3).json()["places"]) == 3


@pytest.mark.parametrize(
    ("params", "field"),
    [({}, "q"), ({"q": "l"}, "q"), ({"q": "x" * 101}, "q"), ({"q": "lee", "limit": 0}, "limit")],
)
def test_bad_input_is_a_problem_naming_the_field(params, field):
    problem = assert_problem(places(**params), 400, "invalid_input")
    assert field in problem["errors"]


def test_nothing_found_is_an_empty_list():
    assert places(q="qqzzxx").json() == {"places": []}


def test_suggestions_are_rate_limited_per_caller(settings):
    settings.RATELIMITS = {**settings.RATELIMITS, "places": "2/h"}
    client = APIClient(REMOTE_ADDR="192.0.2.22")
    statuses = [client.get(PLACES, {"q": "leeds"}).status_code for _ in range(3)]
    assert statuses == [200, 200, 429]
    response = client.get(PLACES, {"q": "york"})
    assert_problem(response, 429, "rate_limited")
    assert int(response["Retry-After"]) > 0
    assert APIClient(REMOTE_ADDR="192.0.2.23").get(PLACES, {"q": "york"}).status_code == 200


def test_the_endpoint_is_in_the_openapi_description():
    schema = APIClient().get("/api/public/v1/openapi.json").json()
    operation = schema["paths"]["/api/public/v1/places"]["get"]
    assert operation["operationId"] == "places_v1"
    assert {p["name"] for p in operation["parameters"]} >= {"q", "limit"}
    assert "429" in operation["responses"]


@pytest.mark.parametrize(
    ("query", "label"),
    [
        ("Manchester Airport T", "Manchester Airport Terminal 2 (MAN)"),
        ("Trafalgar", "Trafalgar Square, London"),
        ("Big B", "Big Ben, London"),
    ],
)
def test_terminals_and_landmarks_are_suggested_and_resolve_back(query, label):
    # Issue 40: "Manchester Airport T" suggested nothing; MCP find_places answers from the
    # same service (pricing.suggestions.places_find).
    found = [p["label"] for p in places(q=query).json()["places"]]
    assert label in found
    assert geocoder_get().geocode(label).label == label


DOORS = ("bookings/views.py", "pricing/api/views.py", "agents/mcp/server.py")


def test_every_door_suggests_places_through_the_one_limited_service():
    """Issue 35: "One limit for place suggestions on every door": the website's
    /places/suggest/, this endpoint and MCP find_places all call places_find, which counts
    RATELIMITS["places"]; nothing outside it calls the unlimited matching."""
    root = Path(__file__).resolve().parents[2]
    for door in DOORS:
        assert "places_find(" in (root / door).read_text(), door
    unlimited = re.compile(r"\bplace_suggestions\(")
    callers = {
        str(path.relative_to(root))
        for package in root.iterdir()
        if (package / "__init__.py").exists()
        for path in package.glob("**/*.py")
        if "tests" not in path.parts and unlimited.search(path.read_text(errors="replace"))
    }
    assert callers == {"pricing/suggestions.py"}
