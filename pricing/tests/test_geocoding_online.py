"""Full street addresses through Nominatim or Photon (geopy), used only when configured
(contract 2.1.1). The HTTP exchanges are recorded with ``responses``; tests have no network."""

import json
from urllib.parse import parse_qs, urlparse

import pytest
import responses
from django.test import override_settings

from pricing.geocoding import AddressGeocoder, places_require_precise

NOMINATIM = "https://nominatim.openstreetmap.org/search"
PHOTON = "https://photon.komoot.io/api"

DOWNING_STREET = {
    "lat": "51.5033635",
    "lon": "-0.1276248",
    "display_name": "10 Downing Street, Westminster, London, SW1A 2AA, United Kingdom",
    "class": "building",
    "type": "house",
    "addresstype": "building",
    "address": {"house_number": "10", "road": "Downing Street", "country_code": "gb"},
}
BRITISH_MUSEUM = {
    "lat": "51.5194133",
    "lon": "-0.1269566",
    "display_name": "British Museum, Great Russell Street, London, WC1B 3DG, United Kingdom",
    "class": "tourism",
    "type": "museum",
    "addresstype": "tourism",
    "address": {"road": "Great Russell Street", "country_code": "gb"},
}


def nominatim() -> AddressGeocoder:
    with override_settings(PRICING_ADDRESS_SERVICE="nominatim"):
        return AddressGeocoder()


@responses.activate
def test_a_street_address_is_placed_by_nominatim():
    responses.get(NOMINATIM, json=[DOWNING_STREET])
    place = nominatim().geocode("10 Downing Street, London")
    assert (place.kind, place.source) == ("venue", "nominatim")
    assert (place.lat, place.lng) == (51.5033635, -0.1276248)
    assert place.label.startswith("10 Downing Street, Westminster")
    query = parse_qs(urlparse(responses.calls[0].request.url).query)
    assert query["q"] == ["10 Downing Street, London"]
    assert query["countrycodes"] == ["gb"]  # the UK only, unless worldwide
    assert "direct-to-driver" in responses.calls[0].request.headers["User-Agent"]


@responses.activate
def test_two_addresses_the_service_resolves_are_a_real_journey():
    responses.get(NOMINATIM, json=[DOWNING_STREET])
    geocoder = nominatim()
    downing = geocoder.geocode("10 Downing Street, London")
    responses.replace(responses.GET, NOMINATIM, json=[BRITISH_MUSEUM])
    museum = geocoder.geocode("British Museum, London")  # a venue the offline index knows
    assert museum.source == "gazetteer"
    places_require_precise(  # 1.8 km apart, both precise: no address_not_precise
        pickup=downing,
        dropoff=museum,
        pickup_text="10 Downing Street, London",
        dropoff_text="British Museum, London",
    )


@responses.activate
def test_what_the_offline_index_places_exactly_never_reaches_the_service():
    place = nominatim().geocode("Leeds station")
    assert (place.kind, place.source) == ("station", "gazetteer")
    assert len(responses.calls) == 0


@responses.activate
def test_the_town_stands_when_the_service_finds_nothing():
    responses.get(NOMINATIM, json=[])
    place = nominatim().geocode("1 Nowhere Lane, Harrogate")
    assert (place.label, place.kind, place.fallback) == ("Harrogate", "town", True)


@responses.activate
def test_the_town_stands_when_the_service_is_down():
    responses.get(NOMINATIM, status=503)
    place = nominatim().geocode("1 Nowhere Lane, Harrogate")
    assert (place.label, place.source) == ("Harrogate", "gazetteer")


@responses.activate
def test_photon_is_a_setting_away():
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
                }
            ],
        },
    )
    with override_settings(PRICING_ADDRESS_SERVICE="photon"):
        place = AddressGeocoder().geocode("1 Park Row, Leeds")
    assert (place.kind, place.source, place.country) == ("address", "photon", "GB")
    assert place.lat == pytest.approx(53.7996)
    assert json.loads(responses.calls[0].response.text)["features"]


@pytest.mark.django_db
@responses.activate
def test_configured_the_quote_says_who_placed_each_end(client, tariffs):
    responses.get(NOMINATIM, json=[DOWNING_STREET])
    with override_settings(PRICING_GEOCODER="pricing.geocoding.AddressGeocoder"):
        response = client.post(
            "/api/public/v1/quote",
            data={"pickup": "10 Downing Street, London", "dropoff": "British Museum, London"},
            content_type="application/json",
        )
    assert response.status_code == 200, response.content
    body = response.json()
    assert body["pickupPlace"]["source"] == "nominatim"
    assert body["dropoffPlace"]["source"] == "gazetteer"
    assert body["distanceMiles"] > 1
