"""Which council's tariff prices a pickup comes from where the pickup resolves (issue 15:
"Leeds station" -> "York" was priced on the network rate with nothing saying why)."""

import copy
import datetime as dt
import json

import pytest

from pricing.catalogue import tariff_catalogue_clear
from pricing.loaders import DATA_FILE, _create_tariff
from pricing.models import TariffKind
from pricing.services import quote_price

NOON = dt.datetime(2030, 6, 5, 11, 0, tzinfo=dt.UTC)

pytestmark = pytest.mark.django_db


def leeds_table():
    """A Leeds City Council table for the test: Manchester's published figures under
    Leeds's name (no Leeds table ships in pricing/data; these figures are not Leeds's)."""
    with open(DATA_FILE, encoding="utf8") as f:
        records = json.load(f)["tariffs"]
    record = copy.deepcopy(next(r for r in records if r["id"] == "manchester-2023-09"))
    record.update({"council": "Leeds City Council", "id": "leeds-test"})
    return record


def leeds_station_to_york():
    return quote_price(
        pickup="Leeds station", dropoff="York", passengers=1, vehicle_type=None, depart_at=NOON
    )


def test_a_leeds_pickup_is_priced_on_leeds_city_councils_table_once_loaded(tariffs):
    tariff = _create_tariff(leeds_table(), kind=TariffKind.COUNCIL)
    assert tariff.areas.filter(label="Leeds").exists()  # the area comes with the council
    tariff_catalogue_clear()
    source = leeds_station_to_york().tariff_source
    assert (source["kind"], source["name"]) == ("council", "Leeds City Council")
    assert "licensingAuthority" not in source


def test_without_its_table_the_quote_names_the_council_it_stands_in_for(tariffs):
    journey = leeds_station_to_york()
    source = journey.tariff_source
    assert source["kind"] == "operator"
    assert source["licensingAuthority"] == "Leeds City Council"
    assert any("Leeds City Council" in line for line in journey.uncertain)


def test_a_pickup_outside_every_listed_area_names_no_council(tariffs):
    journey = quote_price(
        pickup="Grassington", dropoff="Skipton", passengers=1, vehicle_type=None, depart_at=NOON
    )
    assert journey.tariff_source["kind"] == "operator"
    assert "licensingAuthority" not in journey.tariff_source
