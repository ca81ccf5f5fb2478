"""Geocoders: free text -> :class:`Place` (contract 2.1.1).

The backend is a setting, ``PRICING_GEOCODER`` (dotted path), read through
:func:`geocoder_get`. The default :class:`OfflineGeocoder` needs no network; the
:class:`PostcodesIoGeocoder` adds UK postcodes through postcodes.io and falls back to the
offline index for everything else; :class:`AddressGeocoder` adds full street addresses
through Nominatim or Photon. A geocoder returns None for text it cannot place; the
service turns that into 422 ``address_not_found``. What a journey's two resolved ends may
be is one rule here, :func:`places_require_precise` (422 ``address_not_precise``).
"""

from __future__ import annotations

import hashlib
import logging
import math
import re
from dataclasses import replace
from functools import lru_cache
from pathlib import Path

import requests
from django.conf import settings
from django.core.cache import cache
from django.utils.module_loading import import_string

from core.errors import DomainError
from pricing.gazetteer import UK, Gazetteer, Place, gazetteer_get, normalise
from pricing.postcodes import Postcode, PostcodeUnits, postcode_in
from pricing.routing import great_circle_m

logger = logging.getLogger(__name__)

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


class PostcodesIoGeocoder(Geocoder):
    """UK postcodes through a postcodes.io server (``PRICING_POSTCODES_IO_URL``), then
    the offline index.

    Chosen by default when ``PRICING_POSTCODES_IO_URL`` is set (postcodes.io is open
    source and self-hostable), or with ``PRICING_GEOCODER =
    "pricing.geocoding.PostcodesIoGeocoder"``. It asks ``GET /postcodes/{postcode}`` for
    a full postcode and ``GET /outcodes/{outcode}`` for an outward code; when the server
    is down, slow, answers an error or does not know the postcode, the offline index
    answers (the postcode's sector or district): a quote never fails because it did.
    """

    PUBLIC_URL = "https://api.postcodes.io"

    def __init__(self, base_url: str | None = None, timeout: float | None = None) -> None:
        base_url = base_url or settings.PRICING_POSTCODES_IO_URL or self.PUBLIC_URL
        self.base_url = base_url.rstrip("/")
        self.timeout = timeout or settings.PRICING_GEOCODER_TIMEOUT
        self.offline = OfflineGeocoder()

    def geocode(
        self, text: str, *, worldwide: bool = False, near: Place | None = None
    ) -> Place | None:
        place = self._postcode_in(text)
        if place is not None:
            return place
        return self.offline.geocode(text, worldwide=worldwide, near=near)

    def _postcode_in(self, text: str) -> Place | None:
        found = postcode_in(text)
        if found is None:
            return None
        postcode = found[0]
        if not postcode.inward and postcode.outward not in self.offline.index.postcodes:
            return None  # "Heathrow T5" ends in no district: nothing to ask
        return self._postcode(postcode)

    def _postcode(self, postcode: Postcode) -> Place | None:
        if postcode.inward:
            url = f"{self.base_url}/postcodes/{postcode.outward}{postcode.inward}"
        else:
            url = f"{self.base_url}/outcodes/{postcode.outward}"
        try:
            response = requests.get(url, timeout=self.timeout)
            body = response.json() if response.status_code == 200 else None
        except (requests.RequestException, ValueError) as exc:
            logger.warning(
                "postcodes.io unavailable for %s (%s)", postcode.text, type(exc).__name__
            )
            return None
        if response.status_code >= 500:
            logger.warning("postcodes.io: HTTP %s for %s", response.status_code, postcode.text)
        result = body.get("result") if isinstance(body, dict) else None
        if not isinstance(result, dict):
            return None
        try:
            lat, lng = float(result["latitude"]), float(result["longitude"])
        except (KeyError, TypeError, ValueError):
            return None  # a postcode without a position (ONSPD gives none for some)
        town = result.get("admin_district")
        if isinstance(town, list):  # outcodes list every district they touch
            town = town[0] if town else None
        label = f"{postcode.text}, {town}" if town else postcode.text
        return Place(label, lat, lng, UK, "postcode", postcode.text, source="postcodes")


# What an OpenStreetMap feature is, as contract 2.1 names precision.
_OSM_TOWNS = {"city", "town", "village", "hamlet", "suburb", "municipality", "locality"}
_OSM_PRECISION = {"railway": "station", "aeroway": "airport", "place": "town", "highway": "street"}
_OSM_VENUES = {"amenity", "tourism", "leisure", "historic", "shop", "office", "building"}
_OSM_STREETS = {"road", "street", "pedestrian", "residential", "primary", "secondary"}


def _osm_precision(osm_class: str, osm_type: str, *, house_number: bool) -> str:
    if house_number:
        return "address"  # "10 High Street": the door, whatever the building is
    if osm_type in _OSM_TOWNS:
        return "town"
    if osm_type in _OSM_STREETS:
        return "street"
    if osm_class in _OSM_PRECISION:
        return _OSM_PRECISION[osm_class]
    return "venue" if osm_class in _OSM_VENUES else "address"


class EngineUnavailable(Exception):
    """The street engine did not answer (down, slow, an HTTP error, not JSON)."""


class StreetEngine:
    """Interface of a street geocoding engine: ``search(text, worldwide=...)`` -> the
    places it reads ``text`` as, its best first (empty: none), or
    :class:`EngineUnavailable`. Nominatim is the first; Photon follows through the same
    interface, and a commercial UK address service can."""

    name = ""

    def __init__(self, base_url: str, *, timeout: float, user_agent: str) -> None:
        self.base_url = base_url.rstrip("/")
        self.timeout = timeout
        self.headers = {"User-Agent": user_agent}

    def search(self, text: str, *, worldwide: bool) -> list[Place]:
        raise NotImplementedError

    def _get(self, path: str, params: dict):
        try:
            response = requests.get(
                f"{self.base_url}{path}", params=params, headers=self.headers, timeout=self.timeout
            )
            response.raise_for_status()
            return response.json()
        except (requests.RequestException, ValueError) as exc:
            raise EngineUnavailable(f"{self.name}: {type(exc).__name__}") from exc


class NominatimEngine(StreetEngine):
    """Nominatim's search API (``GET /search?format=jsonv2``), self-hosted or public:
    https://nominatim.org/release-docs/latest/api/Search/ . Kept to the UK
    (``countrycodes=gb``) unless ``worldwide``."""

    name = "nominatim"
    LIMIT = 5

    def search(self, text: str, *, worldwide: bool) -> list[Place]:
        params = {"q": text, "format": "jsonv2", "addressdetails": 1, "limit": self.LIMIT}
        if not worldwide:
            params["countrycodes"] = "gb"
        rows = self._get("/search", params)
        if not isinstance(rows, list):
            raise EngineUnavailable("nominatim: not a list of places")
        return [p for row in rows if (p := self._place(row, worldwide=worldwide)) is not None]

    def _place(self, row, *, worldwide: bool) -> Place | None:
        try:
            lat, lng = float(row["lat"]), float(row["lon"])
        except (KeyError, TypeError, ValueError):
            return None
        address = row.get("address") or {}
        osm_class = row.get("category") or row.get("class") or ""  # jsonv2 / json
        osm_type = row.get("addresstype") or row.get("type") or ""
        return Place(
            str(row.get("display_name") or "")[:200],
            lat,
            lng,
            (address.get("country_code") or ("" if worldwide else UK)).upper(),
            _osm_precision(osm_class, osm_type, house_number=bool(address.get("house_number"))),
            source=self.name,
        )


class PhotonEngine(StreetEngine):
    """Photon's search API (``GET /api?q=``, GeoJSON), the same OpenStreetMap data as
    Nominatim with a typo-tolerant index: https://github.com/komoot/photon ."""

    name = "photon"
    LIMIT = 5

    def search(self, text: str, *, worldwide: bool) -> list[Place]:
        body = self._get("/api", {"q": text, "limit": self.LIMIT})
        features = body.get("features") if isinstance(body, dict) else None
        if not isinstance(features, list):
            raise EngineUnavailable("photon: not a feature collection")
        places = []
        for feature in features:
            try:
                lng, lat = (float(v) for v in feature["geometry"]["coordinates"][:2])
                props = feature.get("properties") or {}
            except (KeyError, TypeError, ValueError, AttributeError):
                continue
            country = (props.get("countrycode") or "").upper()
            if not worldwide and country != UK:
                continue
            words = [props.get("housenumber"), props.get("street") or props.get("name")]
            label = " ".join(str(w) for w in words if w)
            label = ", ".join(str(w) for w in (label, props.get("city")) if w)
            kind = _osm_precision(
                props.get("osm_key", ""),
                props.get("type", ""),
                house_number=bool(props.get("housenumber")),
            )
            places.append(Place(label[:200], lat, lng, country, kind, source=self.name))
        return places


STREET_ENGINES = {"nominatim": NominatimEngine, "photon": PhotonEngine}

# The order a street engine's readings are ranked in: the most precise first.
_RANK = ("address", "street", "venue", "station", "airport", "postcode", "town")


def street_engine_get() -> StreetEngine | None:
    """The configured street engine (``GEOCODER_STREET_URL``), None when there is none."""
    if not settings.GEOCODER_STREET_URL:
        return None
    return STREET_ENGINES[settings.GEOCODER_STREET_ENGINE](
        settings.GEOCODER_STREET_URL,
        timeout=settings.PRICING_GEOCODER_TIMEOUT,
        user_agent=settings.GEOCODER_STREET_USER_AGENT,
    )


def streets_supported() -> bool:
    """Whether street addresses can be placed here (a street engine is configured): what
    forms, hints and errors may promise (contract 2.1.1)."""
    return bool(settings.GEOCODER_STREET_URL)


def address_hint() -> str:
    """What an address field takes, as the forms and the API's errors say it."""
    if streets_supported():
        return "A street address, postcode, station, airport, landmark or town."
    return "A postcode, station, airport, landmark or town (add the postcode to a street address)."


class AddressGeocoder(PostcodesIoGeocoder):
    """Postcodes, then the offline index, then a street engine (``GEOCODER_STREET_URL``:
    Nominatim by default, ``GEOCODER_STREET_ENGINE=photon`` for Photon).

    Chosen by default when ``GEOCODER_STREET_URL`` is set (contract 2.1.1). The engine is
    asked only for text the offline index cannot place, or can place only as far as the
    town it names ("10 High Street, Oxford"); of its readings those inside that town are
    kept, the most precise first (address, street, then the rest), and answers are cached
    (``GEOCODER_STREET_CACHE_SECONDS``). An engine that is down is 503
    ``service_unavailable``: the quote is not priced from the town instead.
    """

    def __init__(self, engine: StreetEngine | None = None) -> None:
        super().__init__()
        self._engine = engine

    @property
    def engine(self) -> StreetEngine | None:
        return self._engine or street_engine_get()

    def geocode(
        self, text: str, *, worldwide: bool = False, near: Place | None = None
    ) -> Place | None:
        place = self._postcode_in(text)
        if place is not None:
            return place
        offline = self.offline.geocode(text, worldwide=worldwide, near=near)
        engine = self.engine
        if engine is None or (offline is not None and not offline.fallback):
            return offline
        readings = self.street_places(engine, text, worldwide=worldwide)
        if offline is not None:  # the engine's reading must lie in the town the text names
            reach = town_radius_km(offline) * 1000
            readings = [
                p
                for p in readings
                if great_circle_m(p.lat, p.lng, offline.lat, offline.lng) <= reach
            ]
        ranked = sorted(readings, key=lambda p: _RANK.index(p.kind) if p.kind in _RANK else 9)
        return ranked[0] if ranked else offline

    @staticmethod
    def street_places(engine: StreetEngine, text: str, *, worldwide: bool) -> list[Place]:
        """The engine's readings of ``text``, cached; 503 when the engine is down."""
        digest = hashlib.sha256(f"{engine.base_url} {normalise(text)}".encode()).hexdigest()
        key = f"geocode:street:{engine.name}:{int(worldwide)}:{digest[:32]}"
        cached = cache.get(key)
        if cached is not None:
            return cached
        try:
            places = engine.search(text, worldwide=worldwide)
        except EngineUnavailable as exc:
            logger.warning("street engine unavailable: %s", exc)
            raise DomainError(
                "service_unavailable",
                "The street address service is unavailable; please retry shortly, or give "
                "the postcode, a station or a landmark.",
            ) from exc
        cache.set(key, places, settings.GEOCODER_STREET_CACHE_SECONDS)
        return places


# Two ends closer than this are one point (contract 2.1.1).
SAME_POINT_M = 50.0


def town_radius_km(town: Place) -> float:
    """How far a town's centre stands for the town: 1.5 km for a village, growing with
    the log of the population to 8 km for a city the size of London."""
    people = max(town.population, 1000)
    return min(8.0, 1.5 + 2 * math.log10(people / 1000))


def places_require_precise(
    *, pickup: Place, dropoff: Place, pickup_text: str, dropoff_text: str
) -> None:
    """Refuse a journey the resolved places cannot price (contract 2.1.1, issue 15).

    422 ``address_not_precise`` when the two ends land on one point, or when an
    end is only a town's centre and the other end lies inside that town while naming
    something more precise or standing in for a street itself ("10 Downing Street,
    London" -> "British Museum, London"): the fare would measure the town, not the
    journey. Town to town ("Harrogate" -> "Knaresborough") is centre to centre, as asked.
    """
    metres = great_circle_m(pickup.lat, pickup.lng, dropoff.lat, dropoff.lng)
    coarse: dict[str, list[str]] = {}
    if metres < SAME_POINT_M:  # from the same text or another: never a flag-fall fare
        message = f"Resolves to the same point as the other end ({pickup.label})."
        coarse = {"pickup": [message], "dropoff": [message]}
    for field_name, end, other in (("pickup", pickup, dropoff), ("dropoff", dropoff, pickup)):
        if (
            end.kind == "town"
            and (end.fallback or other.kind != "town" or other.fallback)
            and metres < town_radius_km(end) * 1000
        ):
            coarse.setdefault(field_name, []).append(
                f"Only placed as far as {end.label} (precision town), too coarse for a "
                "journey within it; give a station, venue, airport or postcode."
            )
    if coarse:
        raise DomainError(
            "address_not_precise",
            "The pickup and dropoff cannot be told apart precisely enough to price the "
            f"journey ({pickup.label} -> {dropoff.label}).",
            errors=coarse,
        )


def place_require_precise(place: Place, *, text: str, field_name: str) -> None:
    """Refuse an end placed only at the town its text names something inside ("10 High
    Street, Oxford" with no street engine, or one that found no such street there): 422
    ``address_not_precise``, asking for what the set-up can place (contract 2.1.1). The
    town's centre is never priced in the street's stead."""
    if not place.fallback:
        return
    if streets_supported():
        ask = (
            "Check the street and town, or add the postcode, or give a nearby station or landmark."
        )
    else:
        ask = "Add its postcode, or give a nearby station or landmark."
    raise DomainError(
        "address_not_precise",
        f"'{text[:120]}' could be placed only as far as {place.label}. {ask}",
        errors={field_name: [f"Only placed as far as {place.label}. {ask}"]},
    )


@lru_cache(maxsize=8)
def _geocoder_for(path: str) -> Geocoder:
    return import_string(path)()


def geocoder_get() -> Geocoder:
    """The configured geocoder (``PRICING_GEOCODER``), one instance per process."""
    return _geocoder_for(settings.PRICING_GEOCODER)
