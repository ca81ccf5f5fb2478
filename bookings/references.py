"""Public booking references: <PREFIX>-<CODE> (contract 3)."""

from __future__ import annotations

import secrets

from django.conf import settings

# Crockford base32 without I, L, O, U: no characters a passenger can misread on the phone.
ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
CODE_LENGTH = 8


def reference_generate() -> str:
    code = "".join(secrets.choice(ALPHABET) for _ in range(CODE_LENGTH))
    return f"{settings.BOOKING_REFERENCE_PREFIX}-{code}"
