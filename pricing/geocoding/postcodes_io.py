"""UK postcodes through a postcodes.io server, then the offline index."""

from __future__ import annotations

import logging

import requests
from django.conf import settings

from pricing.gazetteer import UK, Place
from pricing.geocoding.base import Geocoder
from pricing.geocoding.offline import OfflineGeocoder
from pricing.postcodes import Postcode, postcode_in

# The name the package had as one module: log readers and the log config select it.
logger = logging.getLogger("pricing.geocoding")


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
