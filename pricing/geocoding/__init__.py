"""Geocoders: free text -> :class:`Place` (contract 2.1.1).

The backend is a setting, ``PRICING_GEOCODER`` (dotted path), read through
:func:`geocoder_get`. The default :class:`OfflineGeocoder` needs no network; the
:class:`PostcodesIoGeocoder` adds UK postcodes through postcodes.io and falls back to the
offline index for everything else; :class:`AddressGeocoder` adds full street addresses
through Nominatim or Photon. A geocoder returns None for text it cannot place; the
service turns that into 422 ``address_not_found``. What a journey's two resolved ends may
be is one rule here, :func:`places_require_precise` (422 ``address_not_precise``).
"""

from pricing.geocoding.addresses import (
    AddressGeocoder,
)
from pricing.geocoding.base import (
    ALTERNATIVE_TOWN_PEOPLE,
    ALTERNATIVES_MAX,
    NEAR_KM,
    Geocoder,
)
from pricing.geocoding.configured import (
    geocoder_get,
)
from pricing.geocoding.offline import (
    AIRPORT_BEATS_TOWN,
    OfflineGeocoder,
)
from pricing.geocoding.postcodes_io import (
    PostcodesIoGeocoder,
)
from pricing.geocoding.precision import (
    SAME_POINT_M,
    place_require_precise,
    places_require_precise,
    town_radius_km,
)
from pricing.geocoding.street_engines import (
    STREET_ENGINES,
    EngineUnavailable,
    NominatimEngine,
    PhotonEngine,
    StreetEngine,
    address_hint,
    street_engine_get,
    streets_supported,
)

__all__ = [
    "AIRPORT_BEATS_TOWN",
    "ALTERNATIVES_MAX",
    "ALTERNATIVE_TOWN_PEOPLE",
    "NEAR_KM",
    "SAME_POINT_M",
    "STREET_ENGINES",
    "AddressGeocoder",
    "EngineUnavailable",
    "Geocoder",
    "NominatimEngine",
    "OfflineGeocoder",
    "PhotonEngine",
    "PostcodesIoGeocoder",
    "StreetEngine",
    "address_hint",
    "geocoder_get",
    "place_require_precise",
    "places_require_precise",
    "street_engine_get",
    "streets_supported",
    "town_radius_km",
]
