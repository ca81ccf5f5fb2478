"""Address suggestions for the landing page's quote form, from the offline gazetteer.

What a person types is matched as a prefix of the normalised names the geocoder itself
resolves (UK airports, major rail stations, UK towns and villages), so every suggestion,
sent back as the pickup or dropoff, is found by :class:`pricing.geocoding.OfflineGeocoder`.
Airports and stations come first (they are what most taxi journeys start or end at), then
towns by population (the gazetteer keeps its rows in that order).
"""

from __future__ import annotations

from bisect import bisect_left
from dataclasses import dataclass
from functools import lru_cache

from pricing.gazetteer import Place, gazetteer_get, normalise

MIN_QUERY = 2
LIMIT = 8
KIND_LABELS = {"airport": "Airport", "station": "Rail station", "place": "Town"}


@dataclass(frozen=True, slots=True)
class Suggestion:
    label: str  # what goes into the address field, and what the geocoder resolves
    kind: str  # airport, station, place

    @property
    def kind_label(self) -> str:
        return KIND_LABELS.get(self.kind, "")


@lru_cache(maxsize=1)
def _sorted_keys() -> tuple[tuple[str, int, int, Place], ...]:
    """(key, table rank, row order, place) sorted by key, over the tables suggested from."""
    index = gazetteer_get()
    uk_airports = {key: place for key, place in index.uk_airports.items() if place.country == "GB"}
    tables = (uk_airports, index.stations, index.uk_places)
    rows = [
        (key, rank, order, place)
        for rank, table in enumerate(tables)
        for order, (key, place) in enumerate(table.items())
    ]
    return tuple(sorted(rows, key=lambda row: row[0]))


def place_suggestions(query: str, limit: int = LIMIT) -> list[Suggestion]:
    """Up to ``limit`` places whose name starts with ``query`` (case, accents and
    punctuation ignored); none for fewer than ``MIN_QUERY`` characters."""
    prefix = normalise(query)
    if len(prefix) < MIN_QUERY:
        return []
    rows = _sorted_keys()
    start = bisect_left(rows, (prefix,))
    matches = []
    for key, rank, order, place in rows[start:]:
        if not key.startswith(prefix):
            break
        matches.append((rank, order, place))
    seen: set[str] = set()
    found: list[Suggestion] = []
    for _rank, _order, place in sorted(matches, key=lambda m: (m[0], m[1])):
        label = _label(place)
        if label not in seen:
            seen.add(label)
            found.append(Suggestion(label=label, kind=place.kind))
        if len(found) == limit:
            break
    return found


def _label(place: Place) -> str:
    return place.label
