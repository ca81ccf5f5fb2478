"""The geocoder the setting ``PRICING_GEOCODER`` names, one instance per process."""

from __future__ import annotations

from functools import lru_cache

from django.conf import settings
from django.utils.module_loading import import_string

from pricing.geocoding.base import Geocoder


@lru_cache(maxsize=8)
def _geocoder_for(path: str) -> Geocoder:
    return import_string(path)()


def geocoder_get() -> Geocoder:
    """The configured geocoder (``PRICING_GEOCODER``), one instance per process."""
    return _geocoder_for(settings.PRICING_GEOCODER)
