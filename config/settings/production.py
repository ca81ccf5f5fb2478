"""Production: PostgreSQL, Redis, real Celery workers, Twilio. Selected explicitly."""

from core.logs import logging_config

from .base import *  # noqa: F403
from .base import LOG_LEVEL, env

DEBUG = env.bool("DJANGO_DEBUG", default=False)
SECRET_KEY = env("SECRET_KEY")
NOTIFICATION_BACKEND = env("NOTIFICATION_BACKEND", default="twilio")
EMAIL_BACKEND = env("EMAIL_BACKEND", default="django.core.mail.backends.smtp.EmailBackend")

SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
SECURE_SSL_REDIRECT = env.bool("SECURE_SSL_REDIRECT", default=True)
# Probes and the scraper speak plain HTTP to the process (the proxy terminates TLS).
SECURE_REDIRECT_EXEMPT = [r"^healthz$", r"^readyz$", r"^metrics$"]
SESSION_COOKIE_SECURE = True
CSRF_COOKIE_SECURE = True
SECURE_HSTS_SECONDS = env.int("SECURE_HSTS_SECONDS", default=60 * 60 * 24 * 365)
SECURE_HSTS_INCLUDE_SUBDOMAINS = True
SECURE_HSTS_PRELOAD = True
SECURE_CONTENT_TYPE_NOSNIFF = True
X_FRAME_OPTIONS = "DENY"

# One JSON object a line, with the request id and the account (contract 10.1).
LOGGING = logging_config(env("LOG_FORMAT", default="json"), LOG_LEVEL)
