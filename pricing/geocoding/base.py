"""The geocoder interface, and how a shared name is settled: the namesake near the
journey's other end, else the most important one, with its alternatives."""

from __future__ import annotations

from dataclasses import replace

from pricing.gazetteer import Gazetteer, Place
from pricing.routing import great_circle_m


class Geocoder:
    """Interface: ``geocode(text, *, worldwide=False, near=None) -> Place | None``.

    Implementations may return a non-UK place whatever ``worldwide`` says; the caller
    decides whether that is outside the service area (contract 2.1). ``near`` is the
    journey's other end, when known: a name shared by several places then means the one
    near it (a taxi journey is local), else the most important one.
    """

    def geocode(
        self, text: str, *, worldwide: bool = False, near: Place | None = None
    ) -> Place | None:
        raise NotImplementedError


# A shared name means the namesake within this distance of the journey's other end
# before the most important namesake further away ("Llanfairpwllgwyngyll" -> "Bangor" is
# Bangor, Gwynedd, 4 miles away; not Bangor, County Down, the bigger town).
NEAR_KM = 50.0


def _nearest(candidates: tuple[Place, ...], near: Place | None) -> Place:
    primary = candidates[0]
    if near is None or len(candidates) == 1:
        return primary

    def km(place: Place) -> float:
        return great_circle_m(place.lat, place.lng, near.lat, near.lng) / 1000

    if km(primary) <= NEAR_KM:
        return primary
    nearest = min(candidates, key=km)
    return nearest if km(nearest) <= NEAR_KM else primary


# The other readings a quote lists beside the one it used (contract 2.1 ``alternatives``):
# at most this many, and of towns only those of this many people, so that "Newport" lists
# Newport (Isle of Wight) and Newport (Shropshire), not every hamlet of that name.
ALTERNATIVES_MAX = 4
ALTERNATIVE_TOWN_PEOPLE = 5_000


def _with_alternatives(chosen: Place, candidates: tuple[Place, ...], index: Gazetteer) -> Place:
    others = tuple(
        place
        for place in candidates
        if place != chosen
        and place.in_uk == chosen.in_uk
        and (place.kind != "town" or place.population >= ALTERNATIVE_TOWN_PEOPLE)
    )[:ALTERNATIVES_MAX]
    if not others:
        return chosen
    # Namesakes ("Newport", "Newport") are told apart, and can be asked for, by their
    # postcode district: "Newport (PO30)" resolves to that district.
    seen = {chosen.label}
    named = []
    for place in others:
        if place.kind == "town" and place.label in seen:
            district = index.postcode_district_near(place.lat, place.lng)
            if district:
                place = replace(place, label=f"{place.label} ({district})")
        seen.add(place.label)
        named.append(place)
    return replace(chosen, alternatives=tuple(named))


# An airport known by a bare name ("Stansted", "Heathrow") is what that name means unless
# it is a place's own name, or the alternate name of a place of at least this many people.
