"""Addresses for tests that need a backing service to be unreachable."""

from __future__ import annotations

import socket


def closed_port() -> int:
    """A local TCP port nothing listens on (bound, then released at once)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def caches_unreachable(settings) -> None:
    """Point every cache (rate limits included) at a Redis on a closed port, through the
    real django-redis client: each call then fails to connect, as when Redis is down.
    ``settings`` is pytest-django's fixture, which restores the caches after the test."""
    location = f"redis://127.0.0.1:{closed_port()}/0"
    options = {"SOCKET_CONNECT_TIMEOUT": 0.5, "SOCKET_TIMEOUT": 0.5}
    settings.CACHES = {
        "default": {
            "BACKEND": "django_redis.cache.RedisCache",
            "LOCATION": location,
            "OPTIONS": options,
        },
        "ratelimit": {
            "BACKEND": "django_redis.cache.RedisCache",
            "LOCATION": location,
            "OPTIONS": {**options, "CLIENT_CLASS": "guards.ratelimit_cache.RateLimitCacheClient"},
        },
    }
    settings.RATELIMIT_USE_CACHE = "ratelimit"
