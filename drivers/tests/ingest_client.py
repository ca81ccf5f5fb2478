"""Calling the ingest process's WSGI application from a test."""

from __future__ import annotations

from django.core import signals
from django.db import close_old_connections

from drivers.api import ingest_wsgi


def wsgi_call(environ, start_response):
    """The ingest's WSGI application, called as Django's test client calls Django's: with
    the test's connection (and its transaction) kept open across the request."""
    signals.request_started.disconnect(close_old_connections)
    try:
        return ingest_wsgi.application(environ, start_response)
    finally:
        signals.request_started.connect(close_old_connections)
