"""Links to a booking's pages (contract 3): the reference plus an unguessable token.

References travel in emails, webhooks and SMS, so a reference alone opens nothing. The
token is an HMAC of the reference under the site's secret key (Django's signing), so it
needs no column, cannot be derived without the key, and survives a key rotation through
``SECRET_KEY_FALLBACKS``.
"""

from __future__ import annotations

import hashlib
import hmac

from django.conf import settings
from django.core import signing

SALT = "bookings.page-link"

# The HMAC keyed for SALT under one secret key, ready to copy: Django derives that key
# (a SHA-256 of the salt and the secret) and builds the HMAC again for every token:
# 6.4 -> 2.0 us a token (load 17). Keyed by the secret, so a changed key is seen.
_keyed: dict[str, hmac.HMAC] = {}


def booking_page_token(reference: str) -> str:
    """``signing.Signer(salt=SALT).signature(reference)``, byte for byte."""
    secret = settings.SECRET_KEY
    keyed = _keyed.get(secret)
    if keyed is None:
        key = hashlib.sha256(f"{SALT}signer{secret}".encode()).digest()
        keyed = _keyed[secret] = hmac.new(key, digestmod=hashlib.sha256)
    mac = keyed.copy()
    mac.update(reference.encode())
    return signing.b64_encode(mac.digest()).decode()


def booking_page_token_valid(reference: str, token: str) -> bool:
    signer = signing.Signer(salt=SALT)
    try:
        return signer.unsign(f"{reference}{signer.sep}{token}") == reference
    except signing.BadSignature:
        return False
