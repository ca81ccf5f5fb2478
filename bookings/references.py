"""Public booking references: <PREFIX>-<CODE> (contract 3)."""

from __future__ import annotations

import secrets

from django.conf import settings

# Crockford base32 without I, L, O, U: no characters a passenger can misread on the phone.
ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
CODE_LENGTH = 8
BITS_PER_CHARACTER = 5  # len(ALPHABET) == 32


def reference_generate() -> str:
    # One draw of 40 random bits (one read of the OS generator, where a choice per
    # character read it sixteen times), cut into eight characters of five bits each.
    bits = secrets.randbits(BITS_PER_CHARACTER * CODE_LENGTH)
    code = "".join(
        ALPHABET[(bits >> (BITS_PER_CHARACTER * position)) & 0b11111]
        for position in range(CODE_LENGTH)
    )
    return f"{settings.BOOKING_REFERENCE_PREFIX}-{code}"
