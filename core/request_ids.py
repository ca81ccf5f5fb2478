"""The id of the request (or task) being served (contract 10.1), in a context variable.

A context variable is per thread and per asyncio task, so the id is right under WSGI
threads and ASGI alike. ``operations.request_ids`` sets it for every request Django
answers (its middleware), for ``/mcp`` and for Celery tasks; the ingest process and the
dispatcher set it themselves. Everything that writes the id out (problem JSON, log lines,
a booking's ``request_id``, a task's message header) reads it here.
"""

from __future__ import annotations

import re
import uuid
from contextvars import ContextVar

# A caller's own id is kept only when it is 1-200 letters, digits, "-", "_" or ".".
VALID_REQUEST_ID = re.compile(r"[A-Za-z0-9._-]{1,200}")

_request_id: ContextVar[str | None] = ContextVar("request_id", default=None)


def request_id_valid(value: str | None) -> bool:
    return bool(value) and VALID_REQUEST_ID.fullmatch(value) is not None


def request_id_new() -> str:
    return uuid.uuid4().hex


def current_request_id() -> str | None:
    """The id of the request or task being served in this context, if any."""
    return _request_id.get()


def request_id_set(request_id: str) -> None:
    _request_id.set(request_id)


def request_id_clear() -> None:
    _request_id.set(None)
