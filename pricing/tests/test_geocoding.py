"""The offline geocoder resolves what contract 2.1.1 names; postcodes.io is recorded HTTP."""

import pytest
import responses

from pricing.geocoding import OfflineGeocoder, PostcodesIoGeocoder

geocoder = OfflineGeocoder()


@pytest.mark.parametrize(
    ("text", "kind", "label"),
    [
        ("Heathrow Airport", "airport", "London Heathrow Airport (LHR)"),
        ("LHR", "airport", "London Heathrow Airport (LHR)"),
        ("Manchester Airport", "airport", "Manchester Airport (MAN)"),
        ("manchester airport.", "airport", "Manchester Airport (MAN)"),
        ("Leeds", "town", "Leeds"),
        ("York", "town", "York"),
        ("Harrogate", "town", "Harrogate"),
        ("HARROGATE", "town", "Harrogate"),
        ("Grassington", "town", "Grassington"),  # a village of ~1,800
        ("London King's Cross", "station", "London King's Cross"),
        ("london kings cross", "station", "London King's Cross"),
        ("Leeds station", "station", "Leeds station"),
        ("10 Downing Street, London", "town", "London"),
        ("Station Road, Harrogate", "town", "Harrogate"),
        ("The Grand Hotel, Brighton, UK", "town", "Brighton"),
        ("Heathrow Terminal 5, London", "airport", "Heathrow Terminal 5 (LHR)"),
        ("Leeds LS1 4DY", "postcode", "LS1 4DY, Leeds (postcode sector LS1 4)"),
        ("Kings Lynn", "town", "King's Lynn"),
    ],
)
def test_offline_geocoder_resolves_contract_cases(text, kind, label):
    place = geocoder.geocode(text)
    assert place is not None
    assert (place.kind, place.label, place.country) == (kind, label, "GB")


def test_unknown_text_resolves_to_nothing():
    assert geocoder.geocode("Xyzzy Plugh Nowhere") is None
    assert geocoder.geocode("   ") is None


def test_world_places_resolve_with_their_country():
    paris = geocoder.geocode("Paris", worldwide=True)
    assert (paris.label, paris.country) == ("Paris", "FR")
    assert geocoder.geocode("CDG", worldwide=True).kind == "airport"
    # UK first for names that exist in both
    assert geocoder.geocode("Birmingham", worldwide=True).country == "GB"


POSTCODE_BODY = {
    "status": 200,
    "result": {
        "postcode": "LS1 4DY",
        "latitude": 53.7965,
        "longitude": -1.5478,
        "admin_district": "Leeds",
        "country": "England",
    },
}
OUTCODE_BODY = {
    "status": 200,
    "result": {
        "outcode": "HG1",
        "latitude": 53.994,
        "longitude": -1.536,
        "admin_district": ["North Yorkshire"],
        "country": ["England"],
    },
}


@responses.activate
def test_postcodes_io_backend_resolves_full_postcodes():
    responses.get("https://api.postcodes.io/postcodes/LS14DY", json=POSTCODE_BODY)
    place = PostcodesIoGeocoder(base_url="https://api.postcodes.io").geocode("ls1 4dy")
    assert (place.kind, place.code, place.label) == ("postcode", "LS1 4DY", "LS1 4DY, Leeds")
    assert (place.lat, place.lng) == (53.7965, -1.5478)


@responses.activate
def test_postcodes_io_backend_resolves_outward_codes():
    responses.get("https://api.postcodes.io/outcodes/HG1", json=OUTCODE_BODY)
    place = PostcodesIoGeocoder(base_url="https://api.postcodes.io").geocode("HG1")
    assert place.label == "HG1, North Yorkshire"


@responses.activate
def test_postcodes_io_unknown_postcode_falls_back_to_the_town():
    responses.get(
        "https://api.postcodes.io/postcodes/ZZ99ZZ",
        json={"status": 404, "error": "Postcode not found"},
        status=404,
    )
    place = PostcodesIoGeocoder(base_url="https://api.postcodes.io").geocode("York ZZ9 9ZZ")
    assert place.label == "York"


@responses.activate
def test_postcodes_io_without_postcode_makes_no_call():
    place = PostcodesIoGeocoder(base_url="https://api.postcodes.io").geocode("Leeds station")
    assert place.kind == "station"
    assert len(responses.calls) == 0


def test_answers_are_remembered_and_the_memory_is_bounded(monkeypatch):
    fresh = OfflineGeocoder()
    looked_up = []
    real = fresh._geocode
    monkeypatch.setattr(
        fresh,
        "_geocode",
        lambda text, worldwide: looked_up.append(text) or real(text, worldwide=worldwide),
    )
    monkeypatch.setattr(OfflineGeocoder, "CACHE_SIZE", 2)

    first = fresh.geocode("Leeds station")
    again = fresh.geocode("Leeds station")
    abroad = fresh.geocode("Paris", worldwide=True)
    unknown = fresh.geocode("Xyzzy Plugh")  # a miss is remembered too, and fills the memory

    assert again is first
    assert first.kind == "station"
    assert abroad.country != "GB"
    assert unknown is None
    assert looked_up == ["Leeds station", "Paris", "Xyzzy Plugh"]
    assert len(fresh._answers) <= 2
    fresh.geocode("Leeds station")
    assert looked_up[-1] == "Leeds station"  # forgotten when the memory was cleared


def test_suggestions_start_with_the_text_and_geocode_back_to_themselves():
    from pricing.gazetteer import gazetteer_get

    suggestions = gazetteer_get().suggest("Lee", limit=5)
    labels = [p.label for p in suggestions]
    assert labels[:2] == ["Leeds Bradford Airport (LBA)", "Leeds station"]  # transport first
    assert "Leeds" in labels
    for place in suggestions:
        assert geocoder.geocode(place.label) == place
    assert gazetteer_get().suggest("L") == []  # too short to mean anything


# --- issue 22: readings in context, and alternatives a caller can send back --------------


def test_a_bare_terminal_number_is_heathrows_unless_the_journey_is_near_manchester():
    assert geocoder.geocode("Terminal 2").label == "Heathrow Terminal 2 (LHR)"
    near_manchester = geocoder.geocode("Manchester Piccadilly")
    place = geocoder.geocode("Terminal 2", near=near_manchester)
    assert place.label == "Manchester Airport Terminal 2 (MAN)"  # its own terminal (issue 40)
    assert [a.label for a in place.alternatives] == ["Heathrow Terminal 2 (LHR)"]


@pytest.mark.parametrize("number", ["1", "2", "3"])
def test_every_manchester_terminal_is_a_place_of_its_own(number):
    from pricing.suggestions import place_suggestions

    label = f"Manchester Airport Terminal {number} (MAN)"
    for text in (f"Manchester Airport T{number}", f"Manchester Terminal {number}", label):
        assert geocoder.geocode(text).label == label
    assert label in [s.label for s in place_suggestions("Manchester Airport T")]


@pytest.mark.parametrize(
    ("text", "label"),
    [
        ("Trafalgar Square", "Trafalgar Square, London"),
        ("Trafalgar Square, London", "Trafalgar Square, London"),
        ("Big Ben", "Big Ben, London"),
        ("Elizabeth Tower", "Big Ben, London"),
        ("Nottingham Castle", "Nottingham Castle, Nottingham"),
        ("King Power Stadium", "King Power Stadium, Leicester"),
        ("AO Arena", "Manchester Arena, Manchester"),
        ("George Square, Glasgow", "George Square, Glasgow"),
        ("Coventry Cathedral", "Coventry Cathedral, Coventry"),
        ("Albert Dock", "Royal Albert Dock, Liverpool"),
    ],
)
def test_landmarks_of_the_larger_towns_are_venues(text, label):
    place = geocoder.geocode(text)
    assert (place.label, place.kind) == (label, "venue")


def test_every_landmark_added_since_issue_40_names_its_source():
    import json

    from pricing.gazetteer import DATA_DIR

    venues = json.loads((DATA_DIR / "uk_venues.json").read_text())["venues"]
    names = {"Trafalgar Square", "Big Ben", "Piccadilly Circus", "Royal Albert Dock"}
    names |= {"Nottingham Castle", "King Power Stadium", "Manchester Arena", "George Square"}
    names |= {"Coventry Cathedral"}
    assert all(v.get("source") for v in venues if v["name"] in names)


def test_namesakes_among_the_alternatives_carry_their_postcode_district():
    newport = geocoder.geocode("Newport")
    labels = [a.label for a in newport.alternatives]
    assert labels == ["Newport (PO30)", "Newport (TF10)"]  # Isle of Wight, Shropshire
    isle_of_wight = geocoder.geocode(labels[0])
    assert (isle_of_wight.kind, isle_of_wight.code) == ("postcode", "PO30")
    assert isle_of_wight.lat == pytest.approx(newport.alternatives[0].lat, abs=0.05)


def test_a_place_with_one_reading_lists_no_alternatives():
    assert geocoder.geocode("Harrogate").alternatives == ()
    assert "alternatives" not in geocoder.geocode("Harrogate").as_json()


def test_a_short_name_is_read_in_the_town_the_address_names():
    assert geocoder.geocode("Victoria, Manchester").label == "Manchester Victoria"
    assert geocoder.geocode("Victoria, London").label == "London Victoria"
    assert not geocoder.geocode("Victoria, Manchester").fallback  # a station, placed
