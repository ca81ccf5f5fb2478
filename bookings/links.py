"""Links to a booking's pages (contract 3): the reference plus an unguessable token.

References travel in emails, webhooks and SMS, so a reference alone opens nothing. The
token is an HMAC of the reference under the site's secret key (Django's signing), so it
needs no column, cannot be derived without the key, and survives a key rotation through
``SECRET_KEY_FALLBACKS``.
"""

from __future__ import annotations

from django.core import signing

SALT = "bookings.page-link"


def booking_page_token(reference: str) -> str:
    return signing.Signer(salt=SALT).signature(reference)


def booking_page_token_valid(reference: str, token: str) -> bool:
    signer = signing.Signer(salt=SALT)
    try:
        return signer.unsign(f"{reference}{signer.sep}{token}") == reference
    except signing.BadSignature:
        return False
