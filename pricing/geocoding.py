"""Geocoders: free text -> :class:`Place` (contract 2.1.1).

The backend is a setting, ``PRICING_GEOCODER`` (dotted path), read through
:func:`geocoder_get`. The default :class:`OfflineGeocoder` needs no network; the
:class:`PostcodesIoGeocoder` adds UK postcodes through postcodes.io and falls back to the
offline index for everything else. A geocoder returns None for text it cannot place; the
service turns that into 422 ``address_not_found``.
"""

from __future__ import annotations

import logging
import re
from functools import lru_cache

import requests
from django.conf import settings
from django.utils.module_loading import import_string

from pricing.gazetteer import Gazetteer, Place, gazetteer_get, normalise

logger = logging.getLogger(__name__)

# UK postcode, full ("LS1 4DY") or outward code only ("LS1"), anywhere in the text.
POSTCODE_RE = re.compile(
    r"\b([A-Z]{1,2}[0-9][A-Z0-9]?)\s*([0-9][ABD-HJLNP-UW-Z]{2})?\b", re.IGNORECASE
)
FULL_POSTCODE_RE = re.compile(r"^[A-Z]{1,2}[0-9][A-Z0-9]?\s*[0-9][ABD-HJLNP-UW-Z]{2}$", re.I)

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
    """Interface: ``geocode(text, *, worldwide=False) -> Place | None``.

    Implementations may return a non-UK place whatever ``worldwide`` says; the caller
    decides whether that is outside the service area (contract 2.1).
    """

    def geocode(self, text: str, *, worldwide: bool = False) -> Place | None:
        raise NotImplementedError


class OfflineGeocoder(Geocoder):
    """Airports (name or IATA), UK towns and villages, major rail stations, world cities;
    "<street or venue>, <town>" falls back to the town."""

    # Answers remembered per process: the data never changes while it runs, Place is
    # immutable, and the same stations and airports come up again and again.
    CACHE_SIZE = 4096

    def __init__(self, index: Gazetteer | None = None) -> None:
        self._index = index
        self._answers: dict[tuple[str, bool], Place | None] = {}

    @property
    def index(self) -> Gazetteer:
        return self._index or gazetteer_get()

    def geocode(self, text: str, *, worldwide: bool = False) -> Place | None:
        key = (text, worldwide)
        try:
            return self._answers[key]
        except KeyError:
            pass
        place = self._geocode(text, worldwide=worldwide)
        if len(self._answers) >= self.CACHE_SIZE:
            self._answers.clear()
        self._answers[key] = place
        return place

    def _geocode(self, text: str, *, worldwide: bool) -> Place | None:
        raw_parts = [p for p in re.split(r"[,\n;]+", text) if p.strip()]
        # Postcodes need the online backend; drop them so "Leeds LS1 4DY" finds Leeds.
        parts = []
        for raw in raw_parts:
            raw = raw.strip()
            if FULL_POSTCODE_RE.match(raw):
                continue
            key = normalise(_drop_postcode(raw))
            if key and key not in _COUNTRY_WORDS:
                parts.append((raw, key))
        if not parts:
            return None
        candidates = []
        if len(parts) > 1:
            candidates.append((text.strip(), " ".join(k for _, k in parts)))
        candidates.extend(parts)
        # A part naming an airport or station beats a town named elsewhere in the text.
        for raw, key in candidates:
            place = self._lookup_transport(raw, key)
            if place is not None:
                return place
        for _raw, key in candidates:
            if _looks_like_street(key):
                continue
            place = self._lookup_place(key, worldwide)
            if place is not None:
                return place
        return None

    def _lookup_transport(self, raw: str, key: str) -> Place | None:
        index = self.index
        if key in index.stations:
            return index.stations[key]
        core = _strip(key, _STATION_SUFFIXES)
        if core != key:
            return (
                index.stations.get(core)
                or index.town_stations.get(core)
                or (index.uk_places.get(core))
            )
        if len(key) == 3 and key in index.iata and (raw.isupper() or key not in index.uk_places):
            return index.iata[key]
        core = _strip(key, _AIRPORT_SUFFIXES)
        words = key.split()
        for word in ("terminal", "airport"):  # "Heathrow Terminal 5", "Gatwick Airport North"
            if word in words[1:]:
                core = " ".join(words[: words.index(word)])
                break
        if core != key:
            for table in (index.uk_airports, index.world_airports):
                place = table.get(key) or table.get(core) or table.get(core + " airport")
                if place is not None:
                    return place
        return None

    def _lookup_place(self, key: str, worldwide: bool) -> Place | None:
        index = self.index
        key = key.removeprefix("the ")
        # A place's own name, then an airport ("Stansted"), then an alternate name ("Brum").
        place = (
            index.uk_places.get(key) or index.uk_airports.get(key) or (index.uk_alternates.get(key))
        )
        if place is not None:
            return place
        # Found abroad even without worldwide: the caller answers outside_service_area.
        return index.world_places.get(key) or index.world_airports.get(key)


def _strip(key: str, suffixes: tuple[str, ...]) -> str:
    for suffix in suffixes:
        if key.endswith(" " + suffix):
            return key[: -len(suffix) - 1]
    return key


def _drop_postcode(text: str) -> str:
    return FULL_POSTCODE_RE.sub("", POSTCODE_RE.sub(_keep_words, text))


def _keep_words(match: re.Match) -> str:
    # Only strip things that really look like a postcode (a digit in the outward code).
    return "" if match.group(2) else match.group(0)


def _looks_like_street(key: str) -> bool:
    words = key.split()
    return bool(words) and (words[0].isdigit() or words[-1] in _STREET_WORDS)


class PostcodesIoGeocoder(Geocoder):
    """UK postcodes through postcodes.io (``PRICING_POSTCODES_IO_URL``), then offline.

    Used only when configured (contract 2.1.1): ``PRICING_GEOCODER =
    "pricing.geocoding.PostcodesIoGeocoder"``. Network errors fall back to offline lookup.
    """

    def __init__(self, base_url: str | None = None, timeout: float | None = None) -> None:
        self.base_url = (base_url or settings.PRICING_POSTCODES_IO_URL).rstrip("/")
        self.timeout = timeout or settings.PRICING_GEOCODER_TIMEOUT
        self.offline = OfflineGeocoder()

    def geocode(self, text: str, *, worldwide: bool = False) -> Place | None:
        for match in POSTCODE_RE.finditer(text):
            outward, inward = match.group(1).upper(), (match.group(2) or "").upper()
            if not any(c.isdigit() for c in outward):
                continue
            place = self._postcode(outward, inward)
            if place is not None:
                return place
        return self.offline.geocode(text, worldwide=worldwide)

    def _postcode(self, outward: str, inward: str) -> Place | None:
        if inward:
            url, code = f"{self.base_url}/postcodes/{outward}{inward}", f"{outward} {inward}"
        else:
            url, code = f"{self.base_url}/outcodes/{outward}", outward
        try:
            response = requests.get(url, timeout=self.timeout)
        except requests.RequestException as exc:
            logger.warning("postcodes.io unreachable for %s: %s", code, exc)
            return None
        if response.status_code != 200:
            return None
        result = response.json().get("result") or {}
        if result.get("latitude") is None or result.get("longitude") is None:
            return None
        town = result.get("admin_district")
        if isinstance(town, list):  # outcodes list every district they touch
            town = town[0] if town else None
        label = f"{code}, {town}" if town else code
        return Place(
            label, float(result["latitude"]), float(result["longitude"]), "GB", "postcode", code
        )


@lru_cache(maxsize=8)
def _geocoder_for(path: str) -> Geocoder:
    return import_string(path)()


def geocoder_get() -> Geocoder:
    """The configured geocoder (``PRICING_GEOCODER``), one instance per process."""
    return _geocoder_for(settings.PRICING_GEOCODER)
