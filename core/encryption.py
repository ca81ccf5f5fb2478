"""Secrets stored encrypted at rest (issue 15: a driver's own maps API key, seed 8.5).

Fernet (AES-128-CBC with HMAC-SHA256, from ``cryptography``) under ``MultiFernet``: the
first key of ``FIELD_ENCRYPTION_KEYS`` encrypts, every key decrypts, so keys can be
rotated (prepend a new one, re-save, drop the old). Without that setting the key is
derived from ``SECRET_KEY`` (HKDF-SHA256, a purpose-bound salt): rotating SECRET_KEY then
makes stored secrets unreadable, which callers treat as "not set".
"""

from __future__ import annotations

import base64
import logging
from functools import lru_cache

from cryptography.fernet import Fernet, InvalidToken, MultiFernet
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.kdf.hkdf import HKDF
from django.conf import settings

logger = logging.getLogger(__name__)

_SALT = b"direct-to-driver/field-encryption/v1"


@lru_cache(maxsize=4)
def _fernet(keys: tuple[str, ...], secret_key: str) -> MultiFernet:
    if keys:
        return MultiFernet([Fernet(key) for key in keys])
    derived = HKDF(algorithm=hashes.SHA256(), length=32, salt=_SALT, info=b"fernet").derive(
        secret_key.encode()
    )
    return MultiFernet([Fernet(base64.urlsafe_b64encode(derived))])


def _current() -> MultiFernet:
    return _fernet(tuple(settings.FIELD_ENCRYPTION_KEYS), settings.SECRET_KEY)


def secret_encrypt(plaintext: str) -> str:
    """The Fernet token of ``plaintext`` (ASCII, safe in a text column); "" stays ""."""
    if not plaintext:
        return ""
    return _current().encrypt(plaintext.encode()).decode("ascii")


def secret_decrypt(token: str) -> str:
    """The plaintext of a token from :func:`secret_encrypt`; "" when there is none or it
    cannot be read (a key rotated away, a tampered value), which is logged without it."""
    if not token:
        return ""
    try:
        return _current().decrypt(token.encode("ascii")).decode()
    except (InvalidToken, ValueError):
        logger.warning("an encrypted secret could not be decrypted; treated as not set")
        return ""
