"""Production settings plus the reference app, for the HTTP benchmarks only."""

from config.settings.production import *  # noqa: F403
from config.settings.production import INSTALLED_APPS

INSTALLED_APPS = [*INSTALLED_APPS, "bench.reference"]
ROOT_URLCONF = "bench.urls"
SECURE_SSL_REDIRECT = False
SESSION_COOKIE_SECURE = False
CSRF_COOKIE_SECURE = False
SECURE_HSTS_SECONDS = 0
LOGGING = {"version": 1, "disable_existing_loggers": False, "root": {"level": "WARNING"}}
