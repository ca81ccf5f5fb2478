"""Verified credentials remembered per process for a few seconds.

API keys and the driver app's tokens are checked on every request; without this each
request paid a database read before its real work. Entries are keyed by the SHA-256 of
the secret (the secret itself is never a dict key), expire after ``API_KEY_CACHE_SECONDS``
(or the setting the cache names, 0: off), and the owner empties the cache when a credential changes in this process;
other processes notice within the expiry, so a revocation takes that long to reach every
worker.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable
from typing import Generic, TypeVar

from django.conf import settings

T = TypeVar("T")


class CredentialCache(Generic[T]):
    def __init__(self, *, max_entries: int, ttl_setting: str = "API_KEY_CACHE_SECONDS") -> None:
        self._entries: dict[str, tuple[float, T]] = {}
        self._max_entries = max_entries
        self._ttl_setting = ttl_setting

    def get(self, secret: str, load: Callable[[], T]) -> T:
        """The value remembered for ``secret``, or ``load()`` (which raises for a bad
        secret: nothing is remembered then)."""
        ttl = float(getattr(settings, self._ttl_setting))
        if ttl <= 0:
            return load()
        digest = hashlib.sha256(secret.encode()).hexdigest()
        now = time.monotonic()
        cached = self._entries.get(digest)
        if cached is None or cached[0] < now:
            value = load()
            if len(self._entries) > self._max_entries:
                self._entries.clear()
            cached = (now + ttl, value)
            self._entries[digest] = cached
        return cached[1]

    def clear(self) -> None:
        self._entries.clear()
