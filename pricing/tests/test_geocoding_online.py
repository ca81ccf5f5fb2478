"""Street addresses through a street engine (issue 40; contract 2.1.1), used only when
``GEOCODER_STREET_URL`` is set. The Nominatim answers are real jsonv2 exchanges recorded
from a Nominatim 5.3.3 over a small extract (pricing/tests/data/nominatim_search_jsonv2.json;
test_nominatim_live.py asks a live one), replayed with ``responses``: no network here."""

import json
from pathlib import Path
from urllib.parse import parse_qs, urlparse

import pytest
import responses
from django.conf import settings
from django.core.cache import cache
from django.test import override_settings
from rest_framework.test import APIClient

from api.tests.assertions import assert_problem
from pricing.geocoding import AddressGeocoder
from pricing.routing import great_circle_m
from pricing.tests.nominatim_extract import EXPECTED

BASE = "http://nominatim.test"
SEARCH = f"{BASE}/search"
PHOTON = "http://photon.test/api"
RECORDED = json.loads(
    (Path(__file__).parent / "data" / "nominatim_search_jsonv2.json").read_text()
)["search"]
STREETS = override_settings(
    GEOCODER_STREET_URL=BASE, PRICING_GEOCODER="pricing.geocoding.AddressGeocoder"
)


@pytest.fixture(autouse=True)
def _fresh_cache():
    cache.clear()
    yield
    cache.clear()


def replay():
    """Answer every /search with the recorded answer to its ``q``."""

    def answer(request):
        query = parse_qs(urlparse(request.url).query)["q"][0]
        return 200, {}, json.dumps(RECORDED.get(query, []))

    responses.add_callback(responses.GET, SEARCH, callback=answer)


def quote(pickup, dropoff):
    return APIClient().post(
        "/api/public/v1/quote", {"pickup": pickup, "dropoff": dropoff}, format="json"
    )


@pytest.mark.django_db
@pytest.mark.parametrize("text", sorted(EXPECTED))
@responses.activate
def test_a_street_address_is_placed_by_nominatim_and_priced_from_there(tariffs, text):
    replay()
    (lat, lng), precision = EXPECTED[text]
    with STREETS:
        response = quote(text, "Heathrow T5")
    assert response.status_code == 200, response.content
    place = response.json()["pickupPlace"]
    assert (place["precision"], place["source"]) == (precision, "nominatim")
    assert great_circle_m(place["lat"], place["lng"], lat, lng) < 100
    # Priced from the street, not the town centre: the quote's (estimated) distance is the
    # straight line from there times the road factor.
    body = response.json()
    end = body["dropoffPlace"]
    metres = great_circle_m(place["lat"], place["lng"], end["lat"], end["lng"])
    miles = metres * settings.PRICING_ROAD_FACTOR / 1609.344
    assert body["distanceMiles"] == pytest.approx(miles, abs=0.1)
    query = parse_qs(urlparse(responses.calls[0].request.url).query)
    assert query["countrycodes"] == ["gb"]  # the UK only, unless worldwide
    assert query["format"] == ["jsonv2"]
    assert "direct-to-driver" in responses.calls[0].request.headers["User-Agent"]


@responses.activate
def test_worldwide_lifts_the_uk_limit():
    responses.get(SEARCH, json=[])
    with STREETS:
        AddressGeocoder().geocode("1 Rue de Rivoli, Paris", worldwide=True)
    assert "countrycodes" not in parse_qs(urlparse(responses.calls[0].request.url).query)


@responses.activate
def test_answers_are_cached():
    replay()
    with STREETS:
        first = AddressGeocoder().geocode("Briggate, Leeds")
        again = AddressGeocoder().geocode("Briggate, Leeds")
    assert first == again
    assert len(responses.calls) == 1


@responses.activate
def test_what_the_offline_index_places_exactly_never_reaches_the_engine():
    with STREETS:
        place = AddressGeocoder().geocode("Leeds station")
    assert (place.kind, place.source) == ("station", "gazetteer")
    assert len(responses.calls) == 0


@responses.activate
def test_a_reading_outside_the_town_the_text_names_is_not_taken():
    # Briggate's recorded answer, asked as if in Oxford: 250 km away, so not Oxford's.
    responses.get(SEARCH, json=RECORDED["Briggate, Leeds"])
    with STREETS:
        place = AddressGeocoder().geocode("Briggate, Oxford")
    assert (place.label, place.fallback) == ("Oxford", True)


@responses.activate
def test_the_most_precise_reading_in_the_town_comes_first():
    street = RECORDED["Briggate, Leeds"][0]
    house = {**street, "address": {**street["address"], "house_number": "12"}, "lat": "53.7970"}
    responses.get(SEARCH, json=[street, house])
    with STREETS:
        place = AddressGeocoder().geocode("12 Briggate, Leeds")
    assert (place.kind, place.lat) == ("address", 53.797)


@pytest.mark.django_db
@responses.activate
def test_a_street_the_engine_does_not_know_is_not_priced_from_its_town(tariffs):
    replay()
    with STREETS:
        response = quote("1 Nowhere Lane, Harrogate", "Leeds Bradford Airport")
    assert_problem(response, 422, "address_not_precise")


@pytest.mark.django_db
@pytest.mark.parametrize("failure", [{"status": 502}, {"body": "<html>busy</html>"}])
@responses.activate
def test_an_engine_that_is_down_is_503_with_retry_after(tariffs, failure):
    responses.get(SEARCH, **failure)
    with STREETS:
        response = quote("10 High Street, Oxford", "Oxford station")
    assert_problem(response, 503, "service_unavailable")
    assert int(response["Retry-After"]) > 0


@responses.activate
def test_photon_is_the_same_interface():
    responses.get(
        PHOTON,
        json={
            "type": "FeatureCollection",
            "features": [
                {
                    "type": "Feature",
                    "geometry": {"type": "Point", "coordinates": [-1.5449, 53.7996]},
                    "properties": {
                        "name": "Park Row",
                        "housenumber": "1",
                        "city": "Leeds",
                        "countrycode": "GB",
                        "osm_key": "highway",
                        "type": "street",
                    },
                },
                {
                    "type": "Feature",
                    "geometry": {"type": "Point", "coordinates": [2.35, 48.86]},
                    "properties": {"name": "Park Row", "countrycode": "FR", "type": "street"},
                },
            ],
        },
    )
    with override_settings(
        GEOCODER_STREET_URL="http://photon.test", GEOCODER_STREET_ENGINE="photon"
    ):
        place = AddressGeocoder().geocode("1 Park Row, Leeds")
    assert (place.kind, place.source, place.country) == ("address", "photon", "GB")
    assert place.label == "1 Park Row, Leeds"
    assert place.lat == pytest.approx(53.7996)
