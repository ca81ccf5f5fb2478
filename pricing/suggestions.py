"""Address suggestions for the landing page's quote form, from the offline gazetteer.

The matching is the gazetteer's own (``Gazetteer.suggest``): a prefix of the names the
geocoder itself resolves, airports, stations and venues first, then towns by population,
so every suggestion sent back as the pickup or dropoff resolves to the place suggested.
"""

from __future__ import annotations

from dataclasses import dataclass

from pricing.gazetteer import gazetteer_get

LIMIT = 8
KIND_LABELS = {"airport": "Airport", "station": "Rail station", "venue": "Venue", "town": "Town"}


@dataclass(frozen=True, slots=True)
class Suggestion:
    label: str  # what goes into the address field, and what the geocoder resolves
    kind: str  # the place's precision: airport, station, venue, town

    @property
    def kind_label(self) -> str:
        return KIND_LABELS.get(self.kind, "")


def place_suggestions(query: str, limit: int = LIMIT) -> list[Suggestion]:
    """Up to ``limit`` places whose name starts with ``query`` (case, accents and
    punctuation ignored); none for fewer than two characters."""
    return [
        Suggestion(label=p.label, kind=p.kind) for p in gazetteer_get().suggest(query, limit=limit)
    ]
