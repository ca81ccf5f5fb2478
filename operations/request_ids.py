"""Request ids (contract 10.1): echoed when the caller's is well formed, else made.

One mechanism, ours: :func:`request_id_middleware` (first in ``MIDDLEWARE``) keeps the
caller's ``X-Request-ID`` when it is 1-200 letters, digits, ``-``, ``_`` or ``.``, else
makes a new one, serves the request under it (``core.request_ids``, a context variable,
right under WSGI and ASGI alike) and sets it on the response, redirects and errors
included. It is forgotten when Django sends ``request_finished``. ``/mcp`` is served
outside Django (config.asgi): :class:`RequestIdASGI` does the same there.

(Until issue 41 django-guid's middleware did the echoing, behind a middleware of ours
that screened the caller's id first: two layers, and django-guid's debug and info log
calls, for one header.)

Into Celery: the id travels in a message header and a worker runs the task under it
(three signal handlers). When a task runs eagerly inside a request (the local
configuration, tests) it keeps the request's id.
"""

from __future__ import annotations

import structlog
from asgiref.sync import iscoroutinefunction
from celery.signals import before_task_publish, task_postrun, task_prerun
from django.core.signals import request_finished
from django.dispatch import receiver
from django.utils.decorators import sync_and_async_middleware

from core.request_ids import (
    current_request_id,
    request_id_clear,
    request_id_new,
    request_id_set,
    request_id_valid,
)

__all__ = [
    "HEADER",
    "TASK_HEADER",
    "RequestIdASGI",
    "current_request_id",
    "request_id_middleware",
    "request_id_new",
    "request_id_valid",
]

HEADER = "X-Request-ID"
_META_KEY = "HTTP_X_REQUEST_ID"
# The header Celery messages carry the id in.
TASK_HEADER = "request_id"


def _request_begin(request) -> str:
    """Serve ``request`` under its id; every log line bound to the previous request's
    context is forgotten."""
    structlog.contextvars.clear_contextvars()
    given = request.META.get(_META_KEY)
    request_id = given if request_id_valid(given) else request_id_new()
    request_id_set(request_id)
    return request_id


@sync_and_async_middleware
def request_id_middleware(get_response):
    """The request's id on every response this middleware wraps (all of them, first in
    ``MIDDLEWARE``), whatever answered: a view, a redirect, an error page."""

    if iscoroutinefunction(get_response):

        async def middleware(request):
            request_id = _request_begin(request)
            response = await get_response(request)
            response[HEADER] = request_id
            return response

    else:

        def middleware(request):
            request_id = _request_begin(request)
            response = get_response(request)
            response[HEADER] = request_id
            return response

    return middleware


@receiver(request_finished)
def _request_forgets_request_id(sender, **kwargs) -> None:
    """Sent once the response is closed: nothing of this request's id reaches the next
    one served by this thread."""
    request_id_clear()


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
        request_id_set(request_id)

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
    request_id = current_request_id()
    if request_id:
        headers[TASK_HEADER] = request_id


@task_prerun.connect
def _task_runs_under_request_id(task, **kwargs) -> None:
    if task.request.is_eager:
        return  # runs inside the request (or task) that started it, under its id
    given = task.request.get(TASK_HEADER)
    structlog.contextvars.clear_contextvars()
    request_id_set(given if request_id_valid(given) else request_id_new())


@task_postrun.connect
def _task_forgets_request_id(task, **kwargs) -> None:
    if not task.request.is_eager:
        request_id_clear()
        structlog.contextvars.clear_contextvars()
