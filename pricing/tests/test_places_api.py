"""Where a quote measured between (contract 2.1, 2.1.1; issue 15, "Places")."""

import datetime as dt
import json
from decimal import Decimal

import pytest
import time_machine
from rest_framework.test import APIClient

from api.tests.assertions import assert_problem

V1 = "/api/public/v1/quote"
NOW = dt.datetime(2030, 6, 5, 10, 0, tzinfo=dt.UTC)

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("tariffs")]


@pytest.fixture(autouse=True)
def _clock():
    with time_machine.travel(NOW, tick=False):
        yield


def quote(pickup, dropoff, **extra):
    body = {"pickup": pickup, "dropoff": dropoff, "passengers": 1, **extra}
    return APIClient().post(V1, data=json.dumps(body), content_type="application/json")


def test_glasgow_airport_is_glasgow_international_not_prestwick():
    response = quote("Glasgow Airport", "Glasgow Central")
    assert response.status_code == 200, response.content
    body = response.json()
    assert body["pickupPlace"]["label"] == "Glasgow International Airport (GLA)"
    assert body["pickupPlace"]["precision"] == "airport"
    assert body["dropoffPlace"]["precision"] == "station"
    assert 8 <= body["distanceMiles"] <= 13  # ~7 miles as the crow flies; not 35 from PIK


def test_newcastle_is_newcastle_upon_tyne():
    body = quote("Newcastle", "Newcastle Airport").json()
    assert body["pickupPlace"]["label"] == "Newcastle upon Tyne"
    assert body["pickupPlace"]["precision"] == "town"
    assert body["distanceMiles"] < 10  # not 230 miles from County Down


@pytest.mark.parametrize(
    ("pickup", "dropoff"),
    [("Llanfairpwllgwyngyll", "Bangor"), ("Bangor", "Llanfairpwllgwyngyll")],
)
def test_a_shared_name_means_the_namesake_near_the_other_end(pickup, dropoff):
    body = quote(pickup, dropoff).json()
    bangor = body["dropoffPlace"] if dropoff == "Bangor" else body["pickupPlace"]
    assert bangor["lat"] == pytest.approx(53.227, abs=0.01)  # Gwynedd, not County Down
    assert body["distanceMiles"] < 8


def test_two_texts_that_fall_back_to_one_town_are_address_not_precise():
    response = quote("10 Downing Street, London", "British Museum, London")
    problem = assert_problem(response, 422, "address_not_precise")
    assert "pickup" in problem["errors"]  # the end that was only placed as far as London
    assert "dropoff" not in problem["errors"]  # the British Museum is a venue


def test_two_spellings_of_one_station_are_address_not_precise():
    response = quote("Kings Cross station", "London King's Cross")
    problem = assert_problem(response, 422, "address_not_precise")
    assert set(problem["errors"]) == {"pickup", "dropoff"}


def test_a_town_centre_cannot_price_a_journey_to_its_own_station():
    assert_problem(quote("Leeds", "Leeds station"), 422, "address_not_precise")


@pytest.mark.parametrize(
    ("pickup", "dropoff"),
    [
        ("Harrogate", "Knaresborough"),  # town to town is centre to centre, as asked
        ("London", "Heathrow Airport"),
    ],
)
def test_journeys_between_distinct_places_are_priced(pickup, dropoff):
    response = quote(pickup, dropoff)
    assert response.status_code == 200, response.content
    assert response.json()["distanceMiles"] > 2


@pytest.mark.parametrize(
    "pickup", ["1 Station Road, Harrogate", "10 High Street, Oxford", "Briggate, Leeds"]
)
def test_offline_a_street_without_its_postcode_is_never_priced_from_its_town(pickup):
    # Issue 40: the town's centre once stood in for the street, however far the journey.
    problem = assert_problem(quote(pickup, "Heathrow T5"), 422, "address_not_precise")
    (message,) = problem["errors"]["pickup"]
    assert "postcode" in message
    assert "station or landmark" in message
    assert "street" not in message.lower().replace(pickup.lower(), "")  # nothing it cannot do


def test_offline_a_street_with_its_postcode_is_placed_at_the_postcode():
    body = quote("10 Downing Street, London SW1A 2AA", "Heathrow T5").json()
    assert body["pickupPlace"]["precision"] == "postcode"
    assert body["pickupPlace"]["label"].startswith("SW1A 2AA")


def test_a_postcode_whose_sector_does_not_exist_is_not_found_though_its_district_is():
    assert_problem(quote("LS99 9XX", "Leeds station"), 422, "address_not_found")


def test_one_place_typed_twice_is_not_a_journey():
    problem = assert_problem(quote("Leeds station", "Leeds station"), 422, "address_not_precise")
    assert set(problem["errors"]) == {"pickup", "dropoff"}


def test_meet_and_greet_away_from_an_airport_is_a_field_error():
    response = quote("Leeds station", "York", meetAndGreet=True)
    problem = assert_problem(response, 400, "invalid_input")
    assert problem["errors"] == {"meetAndGreet": ["Only for airport pickups."]}


def test_meet_and_greet_at_an_airport_pickup_is_charged():
    body = quote("Leeds Bradford Airport", "York", meetAndGreet=True).json()
    assert body["pickupPlace"]["precision"] == "airport"
    assert [r["amountGBP"] for r in body["appliedRules"] if r["code"] == "meet_and_greet"] == [25.0]


# --- addresses as passengers type them (issue 22) ----------------------------------------


@pytest.mark.parametrize(
    ("pickup", "dropoff"),
    [
        ("M1 1AE", "Manchester Airport"),
        ("LS1 4DY", "Leeds Bradford Airport"),
        ("EH1 1YZ", "Edinburgh Airport"),
        ("sw1a1aa", "Heathrow Airport"),
        ("10 Downing Street, London SW1A 2AA", "Paddington"),
    ],
)
def test_postcodes_price_a_journey_offline(pickup, dropoff):
    response = quote(pickup, dropoff)
    assert response.status_code == 200, response.content
    assert response.json()["pickupPlace"]["precision"] == "postcode"


def test_a_bare_terminus_name_is_the_london_terminus_never_abroad():
    body = quote("Victoria", "Gatwick Airport").json()
    pickup = body["pickupPlace"]
    assert (pickup["label"], pickup["precision"]) == ("London Victoria", "station")
    assert "Manchester Victoria" in [a["label"] for a in pickup["alternatives"]]
    assert 20 <= body["distanceMiles"] <= 40
    worldwide = quote("Victoria", "Gatwick Airport", worldwide=True).json()
    assert worldwide["pickupPlace"]["label"] == "London Victoria"


def test_a_short_name_is_read_near_the_other_end():
    body = quote("Victoria", "Manchester Airport").json()
    assert body["pickupPlace"]["label"] == "Manchester Victoria"
    assert "London Victoria" in [a["label"] for a in body["pickupPlace"]["alternatives"]]
    assert body["distanceMiles"] < 20
    assert quote("Piccadilly", "Bolton").json()["pickupPlace"]["label"] == "Manchester Piccadilly"


@pytest.mark.parametrize(
    ("text", "label"),
    [
        ("Waterloo", "London Waterloo"),
        ("Paddington", "London Paddington"),
        ("King's Cross", "London King's Cross"),
        ("Euston", "London Euston"),
        ("Liverpool Street", "London Liverpool Street"),
        ("Birmingham International", "Birmingham International station"),
        ("Gatwick North Terminal", "Gatwick North Terminal (LGW)"),
        ("Heathrow Terminal 2", "Heathrow Terminal 2 (LHR)"),
    ],
)
def test_the_names_people_use_resolve(text, label):
    body = quote(text, "Heathrow T5").json()
    assert body["pickupPlace"]["label"] == label
    assert body["dropoffPlace"]["label"] == "Heathrow Terminal 5 (LHR)"


def test_heathrow_terminals_are_their_own_points():
    body = quote("Heathrow T5", "Heathrow Terminal 4").json()
    assert body["pickupPlace"]["precision"] == body["dropoffPlace"]["precision"] == "airport"
    assert 1.5 <= body["distanceMiles"] <= 6  # T5 to T4 round the airfield, not 0


def test_meet_and_greet_is_offered_at_a_terminal(settings):
    """Issue 37: this checked 200 only. The charge is one line of the setting's amount,
    added to the fare the same journey costs without it."""
    response = quote("Gatwick South Terminal", "Brighton", meetAndGreet=True)
    assert response.status_code == 200, response.content
    body = response.json()
    assert body["pickupPlace"]["precision"] == "airport"
    lines = [r for r in body["appliedRules"] if r["code"] == "meet_and_greet"]
    amount = Decimal(settings.PRICING_MEET_AND_GREET_GBP)
    assert [Decimal(str(r["amountGBP"])) for r in lines] == [amount]
    without = quote("Gatwick South Terminal", "Brighton").json()
    assert "meet_and_greet" not in [r["code"] for r in without["appliedRules"]]
    assert Decimal(str(body["fareGBP"])) == Decimal(str(without["fareGBP"])) + amount


def test_alternatives_are_in_the_openapi_description():
    schema = APIClient().get("/api/public/v1/openapi.json").json()
    place = schema["components"]["schemas"]["ResolvedPlace"]
    assert "alternatives" in place["properties"]
    assert "alternatives" not in place.get("required", [])
