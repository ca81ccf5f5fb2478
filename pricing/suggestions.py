"""Place suggestions (issue 22): the landing page's quote form, ``GET
/api/public/v1/places`` and the MCP tool ``find_places`` all answer from here.

The matching is the gazetteer's own (``Gazetteer.suggest``): a prefix of the names the
geocoder itself resolves, airports and terminals, stations and venues first, then towns
by population; a postcode (full or outward) comes first as itself. Every suggestion's
label, sent back as a pickup or dropoff, resolves to the place suggested.
"""

from __future__ import annotations

from dataclasses import dataclass

from core.callers import Caller
from guards.ratelimits import limit_enforce
from pricing.gazetteer import gazetteer_get
from pricing.geocoding import OfflineGeocoder
from pricing.postcodes import postcode_parse

LIMIT = 8  # the landing page's list, and the API's default
LIMIT_MAX = 20  # the most the API and the MCP tool give at once
QUERY_MIN = 2  # fewer characters than this suggest nothing
QUERY_MAX = 100
KIND_LABELS = {
    "airport": "Airport",
    "station": "Rail station",
    "venue": "Venue",
    "town": "Town",
    "postcode": "Postcode",
}

_postcodes = OfflineGeocoder()


@dataclass(frozen=True, slots=True)
class Suggestion:
    label: str  # what goes into the address field, and what the geocoder resolves
    kind: str  # the place's precision: airport, station, venue, town, postcode
    lat: float
    lng: float

    @property
    def kind_label(self) -> str:
        return KIND_LABELS.get(self.kind, "")


def place_suggestions(query: str, limit: int = LIMIT) -> list[Suggestion]:
    """Up to ``limit`` places whose name starts with ``query`` (case, accents and
    punctuation ignored); none for fewer than two characters."""
    query = query[:QUERY_MAX]
    found = []
    postcode = postcode_parse(query)
    if postcode is not None and limit > 0:
        place = _postcodes.postcode_place(postcode)
        if place is not None:
            found.append(place)
    found.extend(gazetteer_get().suggest(query, limit=limit - len(found)))
    return [Suggestion(p.label, p.kind, p.lat, p.lng) for p in found[:limit]]


def places_find(*, caller: Caller, query: str, limit: int = LIMIT) -> list[Suggestion]:
    """Place suggestions for a caller of any door: the website's quote form, the public
    API and the MCP server (issues 22, 35); the one place their limit is counted.

    Policies: the ``places`` rate limit per caller (``RATELIMITS``), ``limit`` clamped to
    1..``LIMIT_MAX``. Guarantees: every label geocodes back to the place suggested.
    """
    limit_enforce(caller, "places")
    return place_suggestions(query, max(1, min(limit, LIMIT_MAX)))
