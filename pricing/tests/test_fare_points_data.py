"""The published fare points (pricing/data/council_fare_points.json) keep their shape and
their invariants: every figure has a dated source, lies in a real district, is an exact
Decimal, and the national 2-mile table's figures fall in the order of its positions."""

import datetime as dt
import json
import re
from decimal import Decimal
from pathlib import Path

import pytest

DATA = Path(__file__).resolve().parents[1] / "data"
POINTS = json.loads((DATA / "council_fare_points.json").read_text())
DISTRICTS = json.loads((DATA / "uk_licensing_authorities.json").read_text())["districts"]
TARIFF_IDS = {t["id"] for t in json.loads((DATA / "council_tariffs.json").read_text())["tariffs"]}

FIGURES = {"fare", "start_charge", "per_mile"}
# A Tariff 1 two-mile fare outside this band is a misread: the August 2023 table runs from
# £14.20 (Heathrow, with its extra) down, with a national average of £7.16.
TWO_MILE_BAND = (Decimal("4.00"), Decimal("15.00"))
PHTM_ID = re.compile(r"^phtm-2023-08-")
PHTM_POSITION = re.compile(r"PHTM position (\d+),")


def _date(text: str) -> dt.date:
    return dt.date.fromisoformat(text)


def _source_ok(source: dict) -> None:
    assert source["url"].startswith(("https://", "http://")), source
    assert source["publisher"].strip(), source
    _date(source["read"])
    if source.get("date") is not None:  # an undated copy says so with null
        assert re.fullmatch(r"\d{4}-\d{2}(-\d{2})?", source["date"]), source
    assert isinstance(source.get("secondary", False), bool)


@pytest.mark.parametrize("point", POINTS["points"], ids=lambda p: p["id"])
def test_point_shape(point):
    assert point["figure"] in FIGURES
    amount = Decimal(point["amount_gbp"])  # a string, never a float
    assert isinstance(point["amount_gbp"], str)
    assert amount == amount.quantize(Decimal("0.01"))
    assert amount > 0
    assert point["areas_gss"]
    assert all(code in DISTRICTS for code in point["areas_gss"])
    assert not any(code.startswith("E09") for code in point["areas_gss"]), "London is TfL's"
    assert _date(point["as_of"]) <= dt.date(2026, 11, 27)
    _source_ok(point["source"])
    assert point["notes"].strip()
    if point["figure"] in ("fare", "per_mile"):
        assert point["tariff"] in (1, 2, 3, 4)
    if point["figure"] == "fare":
        assert Decimal(point["miles"]) > 0
    if "distance_m" in point:
        assert Decimal(point["distance_m"]) > 0
    if "superseded_from" in point:  # known to have been replaced by figures not found
        assert _date(point["superseded_from"]) > _date(point["as_of"])


def test_ids_unique():
    ids = [p["id"] for p in POINTS["points"]] + [r["id"] for r in POINTS["rises"]]
    assert len(ids) == len(set(ids))


def test_two_mile_fares_are_plausible():
    two_mile = [p for p in POINTS["points"] if p["figure"] == "fare" and Decimal(p["miles"]) == 2]
    assert len(two_mile) >= 30
    low, high = TWO_MILE_BAND
    assert all(low <= Decimal(p["amount_gbp"]) <= high for p in two_mile)


def test_phtm_ranking_order_holds():
    """The table is ranked: a later position never has a higher fare, and within a run of
    equal fares PHTM prints the names alphabetically (the rule the matching relied on)."""
    phtm = [p for p in POINTS["points"] if PHTM_ID.match(p["id"])]
    ranked = sorted(phtm, key=lambda p: int(PHTM_POSITION.search(p["notes"]).group(1)))
    positions = [int(PHTM_POSITION.search(p["notes"]).group(1)) for p in ranked]
    assert positions == sorted(set(positions)), "one council per position"
    fares = [Decimal(p["amount_gbp"]) for p in ranked]
    assert fares == sorted(fares, reverse=True)
    printed = [re.search(r"printed as '([^']+)'", p["notes"]).group(1) for p in ranked]
    rows = list(zip(fares, printed, strict=True))
    for (fare_a, name_a), (fare_b, name_b) in zip(rows, rows[1:], strict=False):
        if fare_a == fare_b:
            assert name_a.replace(" ", "") < name_b.replace(" ", ""), (name_a, name_b)
    assert all(p["as_of"] == "2023-08-01" and p["tariff"] == 1 and p["miles"] == "2" for p in phtm)


def test_rises_shape():
    for rise in POINTS["rises"]:
        assert rise["areas_gss"]
        assert all(code in DISTRICTS for code in rise["areas_gss"])
        _date(rise["effective_from"])
        percent = Decimal(rise["percent"])
        assert Decimal("-50") < percent < Decimal("50")
        assert percent != 0
        _source_ok(rise["source"])


def test_cross_checks_against_the_registry():
    """Where the registry holds a table that was in force in August 2023, PHTM's figure is
    that table's 2-mile Tariff 1 fare (Nottingham 2022: £5.80 for the first mile at 20p per
    86.2 yd after 122.2 yd, then 11 x 20p per 160 yd)."""
    by_id = {p["id"]: p for p in POINTS["points"]}
    assert by_id["phtm-2023-08-nottingham"]["amount_gbp"] == "8.00"
    assert by_id["phtm-2023-08-york"]["amount_gbp"] == "8.00"
    assert by_id["phtm-2023-08-edinburgh"]["amount_gbp"] == "8.40"
    assert "leeds-2026-01" in TARIFF_IDS


def _same_day_sets():
    """An authority's figures published together: one authority, day and tariff."""
    sets: dict[tuple, list[dict]] = {}
    for point in POINTS["points"]:
        sets.setdefault((point["authority"], point["as_of"], point.get("tariff")), []).append(point)
    return sets


def test_figures_published_together_agree():
    """Figures of one table (one authority, day and tariff) check against each other: a
    longer journey never costs less (East Riding's 2022 fares at 4, 9 and 13 miles), and
    where fares a mile apart stand beside a per-mile price, their difference is that price
    to within one 30p step."""
    compared = 0
    for points in _same_day_sets().values():
        fares = sorted(
            (Decimal(p["miles"]), Decimal(p["amount_gbp"])) for p in points if p["figure"] == "fare"
        )
        for (miles_a, fare_a), (miles_b, fare_b) in zip(fares, fares[1:], strict=False):
            if miles_b > miles_a:
                assert fare_b > fare_a, points[0]["authority"]
                compared += 1
        by_miles = dict(fares)
        for per_mile in (Decimal(p["amount_gbp"]) for p in points if p["figure"] == "per_mile"):
            for miles, fare in by_miles.items():
                if miles + 1 in by_miles:
                    assert abs(by_miles[miles + 1] - fare - per_mile) <= Decimal("0.30")
    assert compared >= 2


def test_no_point_where_the_registry_has_a_complete_table():
    """Points are for authorities without a complete current table: where the registry has
    one (Walsall's December 2023 notice, Falkirk's, Dumfries and Galloway's), the table
    prices and a point would only duplicate it. Glasgow's PHTM figure is the one exception
    the first search kept as the PHTM table's own cross-check."""
    complete = set()
    for tariff in json.loads((DATA / "council_tariffs.json").read_text())["tariffs"]:
        status = (tariff.get("status") or "").lower()
        if any(word in status for word in ("historical", "superseded", "proposed", "partial")):
            continue
        if tariff.get("effective_to"):
            continue
        complete |= set(tariff.get("areas_gss") or [])
    doubled = {p["id"] for p in POINTS["points"] if complete & set(p["areas_gss"])}
    assert doubled <= {"phtm-2023-08-glasgow"}


def test_coverage_does_not_shrink():
    """The file's reach as the README states it (2026-11-27, second search): a lost block of
    points shows here before it shows in the coverage command."""
    authorities = {p["authority"] for p in POINTS["points"]}
    districts = {code for p in POINTS["points"] for code in p["areas_gss"]}
    assert len(authorities) >= 102
    assert len(districts) >= 112
