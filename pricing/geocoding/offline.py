"""The offline geocoder: airports, stations, venues, UK towns and villages, world cities,
from the gazetteer and the postcode units file; no network."""

from __future__ import annotations

import re
from dataclasses import replace
from functools import lru_cache
from pathlib import Path

from django.conf import settings

from pricing.gazetteer import UK, Gazetteer, Place, gazetteer_get, normalise
from pricing.geocoding.base import NEAR_KM, Geocoder, _nearest, _with_alternatives
from pricing.postcodes import Postcode, PostcodeUnits, postcode_in
from pricing.routing import great_circle_m

_COUNTRY_WORDS = {
    "uk",
    "u k",
    "united kingdom",
    "gb",
    "great britain",
    "england",
    "scotland",
    "wales",
    "northern ireland",
    "britain",
}
_STATION_SUFFIXES = ("rail station", "railway station", "train station", "station")
_AIRPORT_SUFFIXES = ("international airport", "airport", "airfield", "intl")
_STREET_WORDS = {
    "road",
    "rd",
    "street",
    "st",
    "lane",
    "ln",
    "avenue",
    "ave",
    "way",
    "drive",
    "dr",
    "close",
    "crescent",
    "place",
    "square",
    "terrace",
    "gardens",
    "grove",
    "court",
    "hill",
    "row",
    "parade",
    "mews",
    "walk",
    "park",
    "rise",
    "view",
}


AIRPORT_BEATS_TOWN = 10_000


class OfflineGeocoder(Geocoder):
    """Airports (name or IATA), stations, venues, UK towns and villages, world cities;
    "<street or venue>, <town>" falls back to the town (marked ``fallback``)."""

    # Answers remembered per process: the data never changes while it runs, Place is
    # immutable, and the same stations and airports come up again and again.
    CACHE_SIZE = 4096

    def __init__(self, index: Gazetteer | None = None) -> None:
        self._index = index
        self._answers: dict[tuple[str, bool], tuple[Place, ...]] = {}

    @property
    def index(self) -> Gazetteer:
        return self._index or gazetteer_get()

    def geocode(
        self, text: str, *, worldwide: bool = False, near: Place | None = None
    ) -> Place | None:
        candidates = self.candidates(text, worldwide=worldwide)
        if not candidates:
            return None
        return _with_alternatives(_nearest(candidates, near), candidates, self.index)

    def candidates(self, text: str, *, worldwide: bool = False) -> tuple[Place, ...]:
        """Every place ``text`` may mean, the most important first (empty: none)."""
        key = (text, worldwide)
        try:
            return self._answers[key]
        except KeyError:
            pass
        places = self._geocode(text, worldwide=worldwide)
        if len(self._answers) >= self.CACHE_SIZE:
            self._answers.clear()
        self._answers[key] = places
        return places

    def _geocode(self, text: str, *, worldwide: bool) -> tuple[Place, ...]:
        # A postcode anywhere (an outward code only at the end) places the text at least
        # to its sector or district, unless the rest names a station, airport or venue.
        postcode = None
        found = postcode_in(text)
        if found is not None:
            postcode = self.postcode_place(found[0])
            if postcode is not None or found[0].inward:
                text = found[1]  # an unknown full postcode is dropped: "York ZZ9 9ZZ"
        parts = []
        for raw in re.split(r"[,\n;]+", text):
            raw = raw.strip()
            key = normalise(raw)
            if key and key not in _COUNTRY_WORDS:
                parts.append((raw, key))
        if not parts:
            return (postcode,) if postcode is not None else ()
        whole = " ".join(k for _, k in parts)
        candidates = []
        if len(parts) > 1:
            candidates.append((text.strip(), whole))
        candidates.extend(parts)
        # A part naming an airport, terminal, station or venue beats a town named elsewhere;
        # a name as it is ("Heathrow Terminal 5") before one read through its suffixes.
        for lookup in (self._lookup_named, self._lookup_transport):
            for raw, key in candidates:
                place = lookup(raw, key)
                if place is not None:
                    return (place,)
        if postcode is not None:
            return (postcode,)
        first = parts[0][1]
        for _raw, key in candidates:
            if _looks_like_street(key) and key not in self.index.common_names:
                continue
            places = self._lookup_place(key, worldwide)
            if places:
                places = self._in_named_town(places, key, parts)
                if key not in (whole, first) or (found is not None and found[0].inward):
                    # The text named something in this town that we cannot place ("Briggate,
                    # Leeds"); a town followed by its county ("Leeds, West Yorkshire") is not.
                    places = tuple(
                        replace(p, fallback=True) if p.kind == "town" else p for p in places
                    )
                return places
        return ()

    def _in_named_town(self, places: tuple[Place, ...], key: str, parts) -> tuple[Place, ...]:
        """The readings of ``key`` near a town the text names elsewhere first: "Victoria,
        Manchester" is Manchester Victoria."""
        if len(places) < 2:
            return places
        for _raw, other in parts:
            towns = self.index.uk_names.get(other, ()) if other != key else ()
            if towns:
                town = towns[0]
                near = [
                    p
                    for p in places
                    if great_circle_m(p.lat, p.lng, town.lat, town.lng) <= NEAR_KM * 1000
                ]
                return (*near, *(p for p in places if p not in near)) if near else places
        return places

    def postcode_place(self, postcode: Postcode) -> Place | None:
        """The postcode's own centroid when the full file is loaded, else its sector's,
        else its district's (contract 2.1.1: precision "postcode")."""
        if postcode.inward:
            point = self.units.get(postcode.unit)
            if point is not None:
                district = self.index.postcodes.get(postcode.outward)
                label = f"{postcode.unit}, {district.town}" if district else postcode.unit
                return Place(label, *point, UK, "postcode", postcode.unit, source="postcodes")
        areas = self.index.postcodes
        if postcode.inward and postcode.sector in areas:
            area, level = areas[postcode.sector], f"sector {postcode.sector}"
        elif postcode.inward:
            return None  # "LS99 9XX": its district exists, its sector does not (contract 2.1.1)
        elif postcode.outward in areas:
            area, level = areas[postcode.outward], f"district {postcode.outward}"
        else:
            return None
        district = areas.get(postcode.outward, area)
        town = f", {district.town}" if district.town else ""
        label = f"{postcode.text}{town} (postcode {level})"
        return Place(label, area.lat, area.lng, UK, "postcode", postcode.text)

    @property
    def units(self) -> PostcodeUnits:
        return _postcode_units(settings.PRICING_POSTCODE_UNITS_FILE)

    def _lookup_named(self, raw: str, key: str) -> Place | None:
        index = self.index
        for table in (index.terminals, index.stations, index.venues):
            if key in table:
                return table[key]
        if (
            key in index.all_stations
            and key not in index.uk_own_names
            and key not in index.uk_airports
        ):
            return index.all_stations[key]  # "Birmingham International", not "Luton"
        return None

    def _lookup_transport(self, raw: str, key: str) -> Place | None:
        index = self.index
        if key in index.common_names:
            return None  # "North Terminal", "Victoria station": read in context, below
        core = _strip(key, _STATION_SUFFIXES)
        if core != key:
            station = (
                index.stations.get(core)
                or index.town_stations.get(core)
                or index.all_stations.get(core)
                or next(iter(index.common_names.get(core, ())), None)
            )
            if station is not None:
                return station
            towns = index.uk_names.get(core)
            return towns[0] if towns else None
        if len(key) == 3 and key in index.iata and (raw.isupper() or key not in index.uk_names):
            return index.iata[key]
        core = _strip(key, _AIRPORT_SUFFIXES)
        words = key.split()
        for word in ("terminal", "airport"):  # "Manchester Terminal 2", "Gatwick Airport North"
            if word in words[1:]:
                core = " ".join(words[: words.index(word)])
                break
        if core != key:
            for table in (index.uk_airports, index.world_airports):
                place = table.get(key) or table.get(core + " airport") or table.get(core)
                if place is not None:
                    return place
        return None

    def _lookup_place(self, key: str, worldwide: bool) -> tuple[Place, ...]:
        index = self.index
        key = key.removeprefix("the ")
        # A place's own name (most important first) beats an airport ("Luton", "Oban" are
        # the towns); an airport's short name beats a small place's alternate name
        # ("Stansted" is the airport, not Stansted Mountfitchet).
        places = index.uk_names.get(key, ())
        airport = index.uk_airports.get(key)
        if airport is not None and (
            not places
            or (key not in index.uk_own_names and places[0].population < AIRPORT_BEATS_TOWN)
        ):
            return (airport, *places)
        # The names people use for stations and terminals: a London terminus, a terminal
        # ("Victoria", "Waterloo", "Terminal 5") beats any town of that name; another
        # station's short name ("Piccadilly") beats only a place under 10,000 people. The
        # others stay readings for a journey whose other end is near one of them.
        common = index.common_names.get(key, ())
        if common and (
            key in index.preferred_names
            or not places
            or (key not in index.uk_own_names or places[0].population < AIRPORT_BEATS_TOWN)
        ):
            return (*common, *places)
        if places or common:
            return (*places, *common)
        # A bare name with no UK reading may be abroad: the caller then answers
        # outside_service_area unless worldwide (a UK reading always comes first).
        place = index.world_places.get(key) or index.world_airports.get(key)
        return (place,) if place is not None else ()


@lru_cache(maxsize=4)
def _postcode_units(path: str) -> PostcodeUnits:
    return PostcodeUnits(Path(path) if path else None)


def _strip(key: str, suffixes: tuple[str, ...]) -> str:
    for suffix in suffixes:
        if key.endswith(" " + suffix):
            return key[: -len(suffix) - 1]
    return key


def _looks_like_street(key: str) -> bool:
    words = key.split()
    return bool(words) and (words[0].isdigit() or words[-1] in _STREET_WORDS)
