"""The offline geocoder against the gold set (issue 15, "Places").

The gold coordinates come from a source independent of the gazetteer (header of
data/uk_places_gold.tsv); a name counts as resolved when the geocoder places it within
2 km of them. Done when at least 99 % are.
"""

from collections import Counter

from pricing.geocoding import OfflineGeocoder
from pricing.tests.gold import (
    TYPED_HIT_RATE,
    gold_misses,
    gold_places,
    typed_gold,
    typed_misses,
)

geocoder = OfflineGeocoder()


def test_the_gold_set_holds_what_the_issue_asks_for():
    places = gold_places()
    kinds = Counter(p.kind for p in places)
    assert len(places) >= 200
    assert {"airport", "station", "city", "town"} <= set(kinds)
    assert kinds["shared"] >= 30
    for name in ("Newcastle", "Richmond", "Gillingham", "Newport", "Ashford", "Bangor"):
        assert name in {p.name for p in places}


def test_the_geocoder_resolves_99_percent_of_the_gold_set_within_2_km():
    places = gold_places()
    misses = gold_misses(geocoder, places)
    hit_rate = 1 - len(misses) / len(places)
    assert hit_rate >= 0.99, "\n".join(f"{m.gold.name}: {m.found} ({m.km} km)" for m in misses)


def test_every_shared_name_means_the_place_the_gold_set_says():
    shared = [p for p in gold_places() if p.kind == "shared"]
    assert gold_misses(geocoder, shared) == []


# --- issue 22: addresses as passengers type them ----------------------------------------


def test_the_typed_gold_set_holds_what_issue_22_asks_for():
    places = typed_gold()
    postcodes = [p for p in places if p.kind in ("full", "outward")]
    names = [p for p in places if p.kind not in ("full", "outward")]
    assert len(postcodes) >= 100
    assert {"full", "outward"} <= {p.kind for p in postcodes}
    assert len(names) >= 60
    for name in ("Victoria", "Waterloo", "Heathrow T5", "Gatwick North Terminal", "Piccadilly"):
        assert name in {p.name for p in names}


def test_98_percent_of_postcodes_and_names_resolve_within_3_km():
    places = typed_gold()
    misses = typed_misses(geocoder, places)
    hit_rate = 1 - len(misses) / len(places)
    assert hit_rate >= TYPED_HIT_RATE, "\n".join(
        f"{m.gold.name}: {m.found} ({m.km} km)" for m in misses
    )


def test_every_postcode_resolves_with_precision_postcode():
    for gold in typed_gold():
        if gold.kind in ("full", "outward"):
            assert geocoder.geocode(gold.name).kind == "postcode", gold.name
