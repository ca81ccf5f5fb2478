"""Test settings: PostgreSQL and Redis when DATABASE_URL / REDIS_URL are set (CI sets both)."""

import os
import tempfile
from pathlib import Path

from .base import *  # noqa: F403
from .base import CACHES, OAUTH2_PROVIDER, REDIS_URL, env

DEBUG = False
SECRET_KEY = env("SECRET_KEY", default="test-only-key-never-served")
SITE_URL = "https://taxi.example"
# The authorization server is SITE_URL (base.py), read when OAUTH2_PROVIDER was built.
OAUTH2_PROVIDER = {**OAUTH2_PROVIDER, "OIDC_ISS_ENDPOINT": SITE_URL}
CONNECTED_DOMAINS = ["https://taxi.example", "https://book.example"]
ALLOWED_HOSTS = ["testserver", "taxi.example", "book.example", "127.0.0.1", "localhost"]
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
CELERY_TASK_ALWAYS_EAGER = True
CELERY_BROKER_URL = "memory://"
# Dispatch runs in the test process after commit; dispatch/tests/test_relay.py runs the
# dispatcher instead (and the subprocesses it starts set DISPATCH_IN_PROCESS=0).
DISPATCH_IN_PROCESS = env.bool("DISPATCH_IN_PROCESS", default=True)
WEBHOOK_ALLOW_PRIVATE_NETWORKS = True
NOTIFICATION_BACKEND = "console"
# Admin login throttling has its own tests, which switch it on.
AXES_ENABLED = False
RATELIMIT_ENABLE = True
# Tests revoke keys with queryset updates (no signals); the cache has its own test.
API_KEY_CACHE_SECONDS = 0
# A test that starts another process passes its own (drivers/tests/test_position_revocations.py).
POSITIONS_TOKEN_CACHE_SECONDS = env.int("POSITIONS_TOKEN_CACHE_SECONDS", default=0)

if REDIS_URL:
    # The tests flush their Redis database between tests: REDIS_URL's own database (so
    # runs given different ones never flush each other's counters), and with xdist the
    # ones after it, one per worker. 15 stays free for the MCP tests' server.
    worker = int(os.environ.get("PYTEST_XDIST_WORKER", "gw0").removeprefix("gw") or "0")
    has_db = REDIS_URL.count("/") > 2 and REDIS_URL.rsplit("/", 1)[1].isdigit()
    base_url = REDIS_URL.rsplit("/", 1)[0] if REDIS_URL.count("/") > 2 else REDIS_URL
    test_db = ((int(REDIS_URL.rsplit("/", 1)[1]) if has_db else 0) + worker) % 15
    CACHES = {
        "default": {
            "BACKEND": "django_redis.cache.RedisCache",
            "LOCATION": f"{base_url}/{test_db}",
            "KEY_PREFIX": "test",
        },
        # Same database as "default", so flushing it between tests resets the counters.
        "ratelimit": {
            "BACKEND": "django_redis.cache.RedisCache",
            "LOCATION": f"{base_url}/{test_db}",
            "KEY_PREFIX": "test",
            "OPTIONS": {"CLIENT_CLASS": "guards.ratelimit_cache.RateLimitCacheClient"},
        },
    }
    RATELIMIT_USE_CACHE = "ratelimit"
    # Live positions in this worker's own database (emptied around every test by the
    # cache's flush and conftest.py): another worker's flush never reaches them.
    POSITIONS_REDIS_URL = f"{base_url}/{test_db}"
    POSITIONS_KEY_PREFIX = f"test{worker}:pos:"
else:
    CACHES = CACHES
    RATELIMIT_USE_CACHE = "default"

_database = DATABASES["default"]  # noqa: F405
if _database["ENGINE"] == "django.db.backends.sqlite3" and _database["NAME"] != ":memory:":
    # A file, not ":memory:": the concurrency tests run requests from many threads, and
    # each thread has its own connection (pytest-django adds the xdist worker's suffix).
    _name = Path(_database["NAME"])
    _database["TEST"] = {"NAME": str(_name.with_name(f"test_{_name.name}"))}

DATABASE_ENGINE_IS_POSTGRES = env("DATABASE_URL", default="").startswith("postgres")

# Tests see the shipped postcode sectors only, whatever a developer has loaded locally
# (tests that need full postcodes write their own file).
PRICING_POSTCODE_UNITS_FILE = ""

# Uploaded files (photos of fare tables) go to a throwaway folder, never the project's.
MEDIA_ROOT = env("MEDIA_ROOT", default=str(Path(tempfile.gettempdir()) / "dtd-test-media"))
