"""Which licensing authority a pickup is in comes from the districts' own areas
(pricing.licensing: ONS postcode districts), not from circles around geocoded towns
(issue 21), and which council's table prices it follows from that (issue 15: "Leeds
station" -> "York" was priced on the network rate with nothing saying why)."""

import copy
import datetime as dt
import json

import pytest

from pricing.catalogue import tariff_catalogue_clear
from pricing.geocoding import OfflineGeocoder
from pricing.licensing import authority_districts, district_at, licensing_authority_at
from pricing.loaders import DATA_FILE, _create_tariff
from pricing.models import TariffKind
from pricing.services import quote_price

NOON = dt.datetime(2030, 6, 5, 11, 0, tzinfo=dt.UTC)


@pytest.mark.parametrize(
    ("place", "authority"),
    [
        # airports whose namesake city is not where they are, or is
        ("Glasgow Airport", "Renfrewshire Council"),
        ("Leeds Bradford Airport", "Leeds City Council"),
        ("Manchester Airport", "Manchester City Council"),
        ("Heathrow Airport", "Transport for London"),
        ("Birmingham Airport", "Solihull Council"),
        ("Edinburgh Airport", "City of Edinburgh Council"),
        ("Luton Airport", "Luton Council"),
        # city centres
        ("Glasgow Central", "Glasgow City Council"),
        ("Manchester Piccadilly", "Manchester City Council"),
        ("Leeds station", "Leeds City Council"),
        ("London Charing Cross", "Transport for London"),
        ("Bradford", "City of Bradford Metropolitan District Council"),
        ("Belfast", "Department for Infrastructure (Northern Ireland)"),
        ("Cardiff", "Cardiff Council"),
        ("Old Trafford", "Trafford Council"),  # the stadium is not in Manchester
    ],
)
def test_the_authority_of_a_place_is_the_one_whose_area_holds_it(place, authority):
    found = OfflineGeocoder().geocode(place)
    assert licensing_authority_at(found.lat, found.lng) == authority


def test_london_is_transport_for_londons_33_districts():
    districts = authority_districts("Transport for London")
    assert len(districts) == 33
    assert districts == [f"E090000{i:02d}" for i in range(1, 34)]


def test_the_district_names_its_ons_code():
    # Leeds Bradford Airport's terminal, and Glasgow Airport's
    assert district_at(53.8659, -1.66057).code == "E08000035"
    assert district_at(55.8719, -4.43306).code == "S12000038"


def test_a_point_at_sea_or_abroad_has_no_authority():
    assert licensing_authority_at(54.0, -4.0) is None  # the Irish Sea
    assert licensing_authority_at(48.8566, 2.3522) is None  # Paris


def leeds_table():
    """A Leeds City Council table for the test: Manchester's published figures under
    Leeds's name and district (no Leeds table ships; these figures are not Leeds's)."""
    with open(DATA_FILE, encoding="utf8") as f:
        records = json.load(f)["tariffs"]
    record = copy.deepcopy(next(r for r in records if r["id"] == "manchester-2023-09"))
    record.update({"council": "Leeds City Council", "id": "leeds-test", "areas_gss": ["E08000035"]})
    return record


def quote(pickup: str, dropoff: str):
    return quote_price(
        pickup=pickup, dropoff=dropoff, passengers=1, vehicle_type=None, depart_at=NOON
    )


def leeds_station_to_york():
    return quote("Leeds station", "York")


@pytest.mark.django_db
def test_a_leeds_pickup_is_priced_on_leeds_city_councils_table_once_loaded(tariffs):
    tariff = _create_tariff(leeds_table(), kind=TariffKind.COUNCIL)
    assert tariff.areas_gss == ["E08000035"]
    tariff_catalogue_clear()
    source = leeds_station_to_york().tariff_source
    assert (source["kind"], source["name"]) == ("council", "Leeds City Council")
    # Contract 2.1: every quote names the pickup's authority, whatever priced it.
    assert (source["basis"], source["licensingAuthority"]) == ("table", "Leeds City Council")
    # Leeds Bradford Airport is Leeds's too, so it prices on the same table
    airport = quote("Leeds Bradford Airport", "York")
    assert airport.tariff_source["reference"] == "leeds-test"


@pytest.mark.django_db
def test_without_its_table_the_quote_names_the_council_it_stands_in_for(tariffs):
    journey = leeds_station_to_york()
    source = journey.tariff_source
    assert (source["kind"], source["basis"]) == ("operator", "network")
    assert source["licensingAuthority"] == "Leeds City Council"
    assert any("Leeds City Council" in line for line in journey.uncertain)


@pytest.mark.django_db
def test_glasgow_airport_pickups_are_not_priced_on_glasgows_table(tariffs):
    # Glasgow City Council's table is loaded, but the airport is Renfrewshire's.
    journey = quote("Glasgow Airport", "Glasgow Central")
    assert journey.tariff_source["kind"] == "operator"
    assert journey.tariff_source["licensingAuthority"] == "Renfrewshire Council"
    city = quote("Glasgow Central", "Glasgow Airport")
    assert city.tariff_source["reference"] == "glasgow-2025"


@pytest.mark.django_db
def test_a_manchester_airport_pickup_is_priced_on_manchesters_table(tariffs):
    journey = quote("Manchester Airport", "Manchester Piccadilly")
    assert journey.tariff_source["reference"] == "manchester-2023-09"
