"""Request ids (contract 10.1): echoed when the caller's is well formed, else made.

django-guid keeps the id of the current request (or task) in a context variable and sets
``X-Request-ID`` on the response; it works the same under WSGI and ASGI. The caller's own
id is kept only when it is 1-200 letters, digits, ``-``, ``_`` or ``.``
(:func:`request_id_header_screen` drops any other before django-guid reads it, so a new
one is made). ``/mcp`` is served outside Django (config.asgi): :class:`RequestIdASGI` does
the same there.

Into Celery: the id travels in a message header and a worker runs the task under it. These
are three signal handlers rather than django-guid's Celery integration because that
integration, when a task runs eagerly inside a request (the local configuration, tests),
replaces the request's id with a new one and then clears it.
"""

from __future__ import annotations

import re
import uuid

import structlog
from asgiref.sync import iscoroutinefunction
from celery.signals import before_task_publish, task_postrun, task_prerun
from django.utils.decorators import sync_and_async_middleware
from django_guid import clear_guid, get_guid, set_guid

HEADER = "X-Request-ID"
_META_KEY = "HTTP_X_REQUEST_ID"
# The header Celery messages carry the id in.
TASK_HEADER = "request_id"
VALID_REQUEST_ID = re.compile(r"[A-Za-z0-9._-]{1,200}")


def request_id_valid(value: str | None) -> bool:
    return bool(value) and VALID_REQUEST_ID.fullmatch(value) is not None


def request_id_new() -> str:
    return uuid.uuid4().hex


def current_request_id() -> str | None:
    """The id of the request or task being served in this context, if any."""
    return get_guid()


@sync_and_async_middleware
def request_id_header_screen(get_response):
    """Before django-guid: a malformed caller id is dropped, so that a new one is made;
    every log line bound to the previous request's context is forgotten."""

    def screen(request) -> None:
        structlog.contextvars.clear_contextvars()
        if not request_id_valid(request.META.get(_META_KEY)):
            request.META.pop(_META_KEY, None)

    if iscoroutinefunction(get_response):

        async def middleware(request):
            screen(request)
            return await get_response(request)

    else:

        def middleware(request):
            screen(request)
            return get_response(request)

    return middleware


class RequestIdASGI:
    """The same rules for an ASGI app served beside Django (the MCP server)."""

    def __init__(self, app):
        self.app = app

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        given = dict(scope.get("headers") or []).get(b"x-request-id", b"")
        try:
            given_text = given.decode("ascii")
        except UnicodeDecodeError:
            given_text = ""
        request_id = given_text if request_id_valid(given_text) else request_id_new()
        structlog.contextvars.clear_contextvars()
        set_guid(request_id)

        async def send_with_id(message):
            if message["type"] == "http.response.start":
                headers = [
                    (name, value)
                    for name, value in message.get("headers", [])
                    if name.lower() != b"x-request-id"
                ]
                headers.append((b"x-request-id", request_id.encode()))
                message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, send_with_id)


@before_task_publish.connect
def _task_carries_request_id(headers: dict, **kwargs) -> None:
    request_id = get_guid()
    if request_id:
        headers[TASK_HEADER] = request_id


@task_prerun.connect
def _task_runs_under_request_id(task, **kwargs) -> None:
    if task.request.is_eager:
        return  # runs inside the request (or task) that started it, under its id
    given = task.request.get(TASK_HEADER)
    structlog.contextvars.clear_contextvars()
    set_guid(given if request_id_valid(given) else request_id_new())


@task_postrun.connect
def _task_forgets_request_id(task, **kwargs) -> None:
    if not task.request.is_eager:
        clear_guid()
        structlog.contextvars.clear_contextvars()
