"""Street engines (Nominatim, Photon) behind one interface, the one the settings
configure, and what the address fields may say with or without one."""

from __future__ import annotations

import requests
from django.conf import settings

from pricing.gazetteer import UK, Place

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
