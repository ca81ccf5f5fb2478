"""A django-redis client for rate-limit counters: one Redis round trip per counted request.

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
"""

from __future__ import annotations

import threading

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


class RateLimitCacheClient(DefaultClient):
    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        # (made key, amount, count) of the last add that counted into an existing key.
        self._counted = threading.local()
        self._add_or_count = None

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
        if client is None:
            client = self.get_client(write=True)
        nkey = self.make_key(key, version=version)
        try:
            count = self._script(client)(keys=[nkey], args=[value, ttl_ms], client=client)
        except ResponseError:
            # Not an integer counter (written by someone else): the stock path copes.
            return super().add(key, value, timeout, version=version, client=client)
        except (RedisConnectionError, RedisTimeoutError, OSError) as exc:
            raise ConnectionInterrupted(connection=client) from exc
        if count is None:
            return True
        self._counted.entry = (str(nkey), value, int(count))
        return False

    def incr(self, key, delta=1, version=None, client=None, ignore_key_check=False) -> int:
        entry = getattr(self._counted, "entry", None)
        self._counted.entry = None
        if entry is not None and entry[:2] == (str(self.make_key(key, version=version)), delta):
            return entry[2]  # already counted by the add just before
        return super().incr(
            key, delta, version=version, client=client, ignore_key_check=ignore_key_check
        )
