"""The road router (issue 15, contract 2.1 ``distanceSource``): OSRM's HTTP route service
when configured, the estimate when not, and the estimate again whenever the router fails.

The OSRM body below is the shape OSRM 5.x answers ``/route/v1/driving/...?overview=false``
with (recorded from the public demo server for Leeds station to York station; hints
shortened): a ``code``, ``routes`` with metres and seconds, and the snapped ``waypoints``.
"""

from __future__ import annotations

import datetime as dt
import json
import re
from decimal import Decimal

import pytest
import requests
import responses
import time_machine
from responses import matchers
from rest_framework.test import APIClient

from pricing.gazetteer import Place
from pricing.routing import DistanceSource, GreatCircleRouter, OsrmRouter

ROUTER = "https://osrm.example.test"
LEEDS_STATION = (53.7955, -1.5475)
YORK_STATION = (53.9580, -1.0930)
ROUTE_URL = (
    f"{ROUTER}/route/v1/driving/{LEEDS_STATION[1]:.6f},{LEEDS_STATION[0]:.6f};"
    f"{YORK_STATION[1]:.6f},{YORK_STATION[0]:.6f}"
)
OSRM_BODY = {
    "code": "Ok",
    "routes": [
        {
            "legs": [
                {
                    "steps": [],
                    "summary": "",
                    "weight": 2489.6,
                    "duration": 2489.6,
                    "distance": 41263.4,
                }
            ],
            "weight_name": "routability",
            "weight": 2489.6,
            "duration": 2489.6,
            "distance": 41263.4,
        }
    ],
    "waypoints": [
        {
            "hint": "f9sBgP___38AAAAAGQAAAAAAAAAAAAAA",
            "distance": 4.183,
            "name": "New Station Street",
            "location": [-1.547513, 53.795495],
        },
        {
            "hint": "wTYBgNA2AYAfAAAAAAAAABkAAAAAAAAA",
            "distance": 11.92,
            "name": "Station Road",
            "location": [-1.093091, 53.957965],
        },
    ],
}
WHEN = dt.datetime(2030, 6, 5, 12, 0, tzinfo=dt.UTC)


def place(point, label):
    return Place(label=label, lat=point[0], lng=point[1], country="GB", kind="station")


@pytest.fixture
def router(settings):
    settings.ROUTING_URL = ROUTER
    settings.ROUTING_KEY_PARAM = ""
    settings.ROUTING_KEY_HEADER = ""
    settings.ROUTING_API_KEY = ""
    return OsrmRouter()


def route(router, **kwargs):
    return router.route(
        place(LEEDS_STATION, "Leeds station"),
        place(YORK_STATION, "York station"),
        depart_at=WHEN,
        **kwargs,
    )


@responses.activate
def test_osrm_measures_road_distance_and_duration(router):
    call = responses.get(
        ROUTE_URL,
        json=OSRM_BODY,
        match=[
            matchers.query_param_matcher(
                {"overview": "false", "alternatives": "false", "steps": "false"}
            )
        ],
    )
    measured = route(router)
    assert call.call_count == 1
    assert measured.source == DistanceSource.ROAD
    assert measured.distance_m == Decimal("41263.4")
    assert measured.duration_s == Decimal("2490")
    assert measured.distance_miles == Decimal("25.6")
    assert measured.duration_minutes == 42  # 2,490 s


@responses.activate
@pytest.mark.parametrize(
    "answer",
    [
        {"body": requests.exceptions.ConnectTimeout("timed out")},
        {"body": requests.exceptions.ConnectionError("refused")},
        {"status": 500, "json": {"code": "InvalidUrl"}},
        {"status": 400, "json": {"code": "NoRoute", "message": "Impossible route"}},
        {"status": 200, "json": {"code": "NoRoute", "routes": []}},
        {"status": 200, "json": {"code": "Ok", "routes": []}},
        {"status": 200, "json": {"code": "Ok", "routes": [{"distance": "far"}]}},
        {"status": 200, "json": ["not", "osrm"]},
        {"status": 200, "body": "<html>gateway</html>"},
    ],
)
def test_any_router_failure_falls_back_to_the_estimate(router, answer):
    responses.get(ROUTE_URL, **answer)
    measured = route(router)
    assert measured.source == DistanceSource.ESTIMATE
    assert measured == route(GreatCircleRouter())


@responses.activate
@pytest.mark.parametrize("how", ["param", "header"])
def test_the_key_goes_where_the_provider_takes_it_and_never_into_the_log(
    router, settings, caplog, how
):
    settings.ROUTING_API_KEY = "network-key-0001"
    if how == "param":
        settings.ROUTING_KEY_PARAM = "api_key"
        match = [matchers.query_param_matcher({"api_key": "network-key-0001"}, strict_match=False)]
    else:
        settings.ROUTING_KEY_HEADER = "X-Api-Key"
        match = [matchers.header_matcher({"X-Api-Key": "network-key-0001"})]
    responses.get(ROUTE_URL, json=OSRM_BODY, match=match)
    assert route(router).source == DistanceSource.ROAD
    # a driver's own key replaces the network's
    responses.replace(responses.GET, ROUTE_URL, body=requests.exceptions.ConnectTimeout("slow"))
    assert route(router, api_key="driver-key-9999").source == DistanceSource.ESTIMATE
    sent = responses.calls[-1].request
    assert "driver-key-9999" in (sent.url if how == "param" else sent.headers["X-Api-Key"])
    assert "router unavailable (ConnectTimeout)" in caplog.text
    assert "driver-key-9999" not in caplog.text  # no key in any log line


@responses.activate
def test_no_key_is_sent_to_a_provider_that_takes_none(router):
    responses.get(ROUTE_URL, json=OSRM_BODY)
    route(router, api_key="driver-key-9999")
    sent = responses.calls[0].request
    assert "driver-key-9999" not in sent.url
    assert "driver-key-9999" not in json.dumps(dict(sent.headers))


# --- the quote endpoint -----------------------------------------------------------------
def quote(body):
    return APIClient().post(
        "/api/public/v1/quote", data=json.dumps(body), content_type="application/json"
    )


ANY_ROUTE = re.compile(rf"{re.escape(ROUTER)}/route/v1/driving/[-0-9.]+,[-0-9.]+;[-0-9.]+,[-0-9.]+")


@pytest.mark.django_db
@responses.activate
def test_a_routed_quote_says_road_and_is_priced_on_the_road_distance(settings, tariffs):
    settings.ROUTING_URL = ROUTER
    settings.PRICING_ROUTER = "pricing.routing.OsrmRouter"
    responses.get(ANY_ROUTE, json=OSRM_BODY)
    with time_machine.travel(WHEN, tick=False):
        routed = quote({"pickup": "Leeds station", "dropoff": "York", "passengers": 2}).json()
        settings.PRICING_ROUTER = "pricing.routing.GreatCircleRouter"
        estimated = quote({"pickup": "Leeds station", "dropoff": "York", "passengers": 2}).json()
    assert len(responses.calls) == 1
    assert routed["distanceSource"] == "road"
    assert routed["distanceMiles"] == 25.6
    assert routed["durationMinutes"] == 42
    assert estimated["distanceSource"] == "estimate"
    assert routed["fareGBP"] != estimated["fareGBP"]  # the fare follows the measured road


@pytest.mark.django_db
@responses.activate
def test_a_router_that_times_out_still_quotes_on_the_estimate(settings, tariffs):
    settings.ROUTING_URL = ROUTER
    settings.PRICING_ROUTER = "pricing.routing.OsrmRouter"
    responses.get(
        ANY_ROUTE,
        body=requests.exceptions.ReadTimeout("read timed out"),
    )
    with time_machine.travel(WHEN, tick=False):
        response = quote({"pickup": "Leeds station", "dropoff": "York", "passengers": 2})
    assert response.status_code == 200, response.content
    assert response.json()["distanceSource"] == "estimate"
    assert len(responses.calls) == 1


@pytest.mark.django_db
def test_without_a_router_quotes_say_estimate(tariffs):
    with time_machine.travel(WHEN, tick=False):
        response = quote({"pickup": "Leeds station", "dropoff": "York", "passengers": 2})
    assert response.json()["distanceSource"] == "estimate"
