"""Verified credentials remembered per process for a few seconds.

API keys and the driver app's tokens are checked on every request; without this each
request paid a database read before its real work. Entries are keyed by the SHA-256 of
the secret (the secret itself is never a dict key), expire after ``API_KEY_CACHE_SECONDS``
(or the setting the cache names, 0: off), and the owner empties the cache when a credential changes in this process;
other processes notice within the expiry, so a revocation takes that long to reach every
worker, unless the owner passes ``still_good``: a check made on every remembered hit (the
position ingest's asks the shared cache whether the token was revoked since,
``drivers.positions.revocations``).
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable
from typing import Generic, TypeVar

from django.conf import settings

T = TypeVar("T")


class CredentialCache(Generic[T]):
    """``get(secret, load)``: the value remembered for ``secret``, or ``load()`` (which
    raises for a bad secret: nothing is remembered then). With ``still_good``, a remembered
    value is used only while ``still_good(sha256 hex of the secret)`` holds; otherwise it
    is forgotten before it is loaded again, so a load that raises leaves nothing behind to
    be used once the reason to doubt it has passed."""

    def __init__(self, *, max_entries: int, ttl_setting: str = "API_KEY_CACHE_SECONDS") -> None:
        self._entries: dict[str, tuple[float, T]] = {}
        self._max_entries = max_entries
        self._ttl_setting = ttl_setting

    def get(self, secret: str, load: Callable[[], T], *, still_good=None) -> T:
        ttl = float(getattr(settings, self._ttl_setting))
        if ttl <= 0:
            return load()
        digest = hashlib.sha256(secret.encode()).hexdigest()
        now = time.monotonic()
        cached = self._entries.get(digest)
        if cached is not None and cached[0] >= now and (still_good is None or still_good(digest)):
            return cached[1]
        self._entries.pop(digest, None)
        value = load()
        if len(self._entries) > self._max_entries:
            self._entries.clear()
        self._entries[digest] = (now + ttl, value)
        return value

    def clear(self) -> None:
        self._entries.clear()
