"""Full street addresses through the street engine, then postcodes and the offline
index."""

from __future__ import annotations

import hashlib
import logging

from django.conf import settings
from django.core.cache import cache

from core.errors import DomainError
from pricing.gazetteer import Place, normalise
from pricing.geocoding.postcodes_io import PostcodesIoGeocoder
from pricing.geocoding.precision import town_radius_km
from pricing.geocoding.street_engines import EngineUnavailable, StreetEngine, street_engine_get
from pricing.routing import great_circle_m

# The order a street engine's readings are ranked in: the most precise first.
_RANK = ("address", "street", "venue", "station", "airport", "postcode", "town")

# The name the package had as one module: log readers and the log config select it.
logger = logging.getLogger("pricing.geocoding")


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
