"""The URLs of a booking's passenger pages, signed with the booking's page token."""

from __future__ import annotations

from urllib.parse import quote

from django.conf import settings
from django.urls import get_script_prefix, get_urlconf, reverse
from django.utils.http import RFC3986_SUBDELIMS

from bookings.links import booking_page_token
from bookings.models import (
    Booking,
)


def booking_status_url(booking: Booking) -> str:
    return _booking_page_url("booking-status-page", booking.reference)


def booking_cancel_url(booking: Booking) -> str:
    """The passenger's cancel page (the booking email's link; the tracking page's button)."""
    return _booking_page_url("booking-cancel-page", booking.reference)


def booking_pay_driver_url(booking: Booking) -> str:
    return _booking_page_url("booking-pay-driver-page", booking.reference)


# (page, URLconf, script prefix) -> its path with marks for the reference and the token.
# Every booking response carries these URLs; resolving the same pattern for each one cost
# more than building the rest of the body.
_page_paths: dict[tuple[str, str, str], str] = {}
_REFERENCE_MARK = "REFERENCE"
_TOKEN_MARK = "TOKEN"


def _booking_page_url(name: str, reference: str) -> str:
    key = (name, str(get_urlconf() or settings.ROOT_URLCONF), get_script_prefix())
    path = _page_paths.get(key)
    if path is None:
        path = _page_paths[key] = reverse(name, args=[_REFERENCE_MARK, _TOKEN_MARK])
    # Quoted as reverse() quotes a path argument.
    token = quote(booking_page_token(reference), safe=RFC3986_SUBDELIMS + "/~:@")
    reference = quote(reference, safe=RFC3986_SUBDELIMS + "/~:@")
    path = path.replace(_REFERENCE_MARK, reference).replace(_TOKEN_MARK, token)
    return settings.SITE_URL + path
