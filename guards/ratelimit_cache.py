"""A django-redis client for rate-limit counters: at most one Redis round trip per request.

django-ratelimit counts a request with ``cache.add(key, 1, period)`` and, when the key
already exists (every request after the first of a window), ``cache.incr(key)``. With
the stock client that is two round trips, and the second is an ``EVAL`` that ships its
Lua source on every call. This client runs both steps as one registered script
(``EVALSHA``): set the key if absent, else add the same amount to it atomically. When the
key existed, the new count is kept for the ``incr`` of the same key that django-ratelimit
issues next, which then needs no round trip. The count therefore moves exactly once per
request, atomically across processes, as before.

Because ``add`` of an integer counts into an existing key, this client is only for the
cache alias named by ``RATELIMIT_USE_CACHE``: never use that alias for anything else.

Generous limits are counted in blocks (:func:`counting_in_blocks`, chosen per limit by
``guards.ratelimits``): the first request of a thread reserves ``block`` consecutive counts
with one ``INCRBY``, and that thread's next requests take the following numbers of its
block with no round trip. Every count number is still handed out once across all
processes, so a key is never admitted beyond its limit; what a thread has reserved but
not used (at most ``block - 1`` per thread) may make the limit refuse that many requests
early in a window. With a block of 1 (every limit under 2,000) the count is
exact, as above.
"""

from __future__ import annotations

import contextlib
import contextvars
import threading
from collections.abc import Iterator
from time import monotonic

from django.core.cache.backends.base import DEFAULT_TIMEOUT
from django_redis.client import DefaultClient
from django_redis.exceptions import ConnectionInterrupted
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import ResponseError
from redis.exceptions import TimeoutError as RedisTimeoutError

# KEYS[1]: the counter. ARGV[1]: the amount; ARGV[2]: time to live in ms ("" for none).
# Returns nil when the key was created, else the count after adding the amount.
ADD_OR_COUNT = """
local created
if ARGV[2] == '' then
    created = redis.call('SET', KEYS[1], ARGV[1], 'NX')
else
    created = redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2])
end
if created then return false end
return redis.call('INCRBY', KEYS[1], ARGV[1])
"""


# How many counts the next counted request may reserve at once (see counting_in_blocks).
_block: contextvars.ContextVar[int] = contextvars.ContextVar("ratelimit_block", default=1)
# A thread keeps at most this many keys' blocks; expired ones go first, then all.
LEASES_KEPT = 256


@contextlib.contextmanager
def counting_in_blocks(block: int) -> Iterator[None]:
    """Within this block, a counted request may reserve ``block`` counts (at least 1)."""
    token = _block.set(max(1, block))
    try:
        yield
    finally:
        _block.reset(token)


class RateLimitCacheClient(DefaultClient):
    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        # (made key, amount, count) of the last add that counted into an existing key.
        self._counted = threading.local()
        self._add_or_count = None
        # Per thread: made key -> [next count of its block, last count, monotonic expiry].
        self._leases = threading.local()

    def _script(self, client):
        # EVALSHA with the script's digest; reloaded by redis-py if the server lost it.
        if self._add_or_count is None:
            self._add_or_count = client.register_script(ADD_OR_COUNT)
        return self._add_or_count

    def add(self, key, value, timeout=DEFAULT_TIMEOUT, version=None, client=None) -> bool:
        self._counted.entry = None
        if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
            return super().add(key, value, timeout, version=version, client=client)
        if timeout is DEFAULT_TIMEOUT:
            timeout = self._backend.default_timeout
        ttl_ms = "" if timeout is None else int(timeout * 1000)
        if ttl_ms != "" and ttl_ms <= 0:
            return super().add(key, value, timeout, version=version, client=client)
        nkey = self.make_key(key, version=version)
        block = _block.get() if value == 1 and timeout is not None else 1
        leases = self._leases_held() if block > 1 else {}
        lease = leases.get(nkey)
        if lease is not None and lease[0] <= lease[1] and lease[2] > monotonic():
            count, lease[0] = lease[0], lease[0] + 1
            self._counted.entry = (str(nkey), value, count)
            return False
        if client is None:
            client = self.get_client(write=True)
        amount = value * block
        try:
            last = self._script(client)(keys=[nkey], args=[amount, ttl_ms], client=client)
        except ResponseError:
            # Not an integer counter (written by someone else): the stock path copes.
            return super().add(key, value, timeout, version=version, client=client)
        except (RedisConnectionError, RedisTimeoutError, OSError) as exc:
            raise ConnectionInterrupted(connection=client) from exc
        created = last is None
        last = amount if created else int(last)
        count = last - amount + value  # the first of the counts just reserved
        if block > 1:
            self._lease_keep(leases, nkey, [count + 1, last, monotonic() + timeout])
        if created:
            return True
        self._counted.entry = (str(nkey), value, count)
        return False

    def clear(self, client=None) -> None:
        # Counters gone, blocks gone: this thread's reserved counts are void.
        self._leases_held().clear()
        super().clear(client=client)

    def _leases_held(self) -> dict:
        try:
            return self._leases.held
        except AttributeError:
            self._leases.held = {}
            return self._leases.held

    @staticmethod
    def _lease_keep(leases: dict, nkey, lease: list) -> None:
        if len(leases) >= LEASES_KEPT and nkey not in leases:
            now = monotonic()
            for stale in [k for k, held in leases.items() if held[2] <= now]:
                del leases[stale]
            if len(leases) >= LEASES_KEPT:
                leases.clear()
        leases[nkey] = lease

    def incr(self, key, delta=1, version=None, client=None, ignore_key_check=False) -> int:
        entry = getattr(self._counted, "entry", None)
        self._counted.entry = None
        if entry is not None and entry[:2] == (str(self.make_key(key, version=version)), delta):
            return entry[2]  # already counted by the add just before
        return super().incr(
            key, delta, version=version, client=client, ignore_key_check=ignore_key_check
        )
