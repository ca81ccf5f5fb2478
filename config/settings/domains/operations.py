"""The settings the operations app reads. Operating the service (issue 25, contract 10.1):
request ids, the ASGI server, metrics and logging.

Star-imported by ``config.settings.base``; a new operations setting goes here.
"""

from config.settings.environment import env
from core.logs import logging_config

# Request ids: operations.request_ids (first in MIDDLEWARE) echoes a caller's X-Request-ID
# that is 1-200 of [A-Za-z0-9._-], else makes a new one.
# How config.asgi serves Django's own requests (everything but /mcp): "wsgi" (Django's
# WSGI handler on ASGI_DJANGO_THREADS threads per process, a2wsgi) or "asgi" (Django's
# ASGI handler). Chosen by measurement: README "Serving".
ASGI_DJANGO_HANDLER = env("ASGI_DJANGO_HANDLER", default="wsgi")
ASGI_DJANGO_THREADS = env.int("ASGI_DJANGO_THREADS", default=8)
# Seconds a client has to send a request's whole body (issue 35, api.request_bodies): the
# ASGI processes (mcp, ingest) read it in the event loop and answer 400 invalid_body after
# this; the proxy (deploy/Caddyfile, read_body) reads the same variable.
REQUEST_BODY_TIMEOUT_SECONDS = env.int("REQUEST_BODY_TIMEOUT_SECONDS", default=10)
# Threads per ingest process that answer reports (drivers.api.ingest_asgi).
INGEST_THREADS = env.int("INGEST_THREADS", default=4)
# Every 503 (a backing service down, /readyz failing) says when to try again.
SERVICE_UNAVAILABLE_RETRY_AFTER_SECONDS = env.int("SERVICE_UNAVAILABLE_RETRY_AFTER", default=5)
# /metrics answers only "Authorization: Bearer <METRICS_TOKEN>"; unset, it is 404.
METRICS_TOKEN = env("METRICS_TOKEN", default="")
METRICS_DISPATCH_LATENCY_WINDOW_MINUTES = env.int(
    "METRICS_DISPATCH_LATENCY_WINDOW_MINUTES", default=15
)
METRICS_DISPATCH_LATENCY_SAMPLE_MAX = 5000
METRICS_BROKER_TIMEOUT_SECONDS = 2.0
# json (one object a line; production's default) or console (key=value; local default).
LOG_FORMAT = env("LOG_FORMAT", default="console")
LOG_LEVEL = env("LOG_LEVEL", default="INFO")
LOGGING = logging_config(LOG_FORMAT, LOG_LEVEL)
