"""The ingest process: a plain WSGI application serving only the position reports.

    granian --interface wsgi --workers N drivers.api.ingest_wsgi:application
    (the Procfile's ``ingest``)

granian parses HTTP in compiled code, so a worker's CPU goes to the reports (README,
"Sizing the position ingest", measured against gunicorn's threaded workers). It hands the
application the body unread, so an oversized one is refused from its Content-Length
before it is received (``_body``).

Stateless (live positions are in Redis, tokens are re-read after their cache expires), so
processes are added behind the proxy as cars are: route ``POST
/api/public/v1/driver/location`` and ``/api/public/v1/osmand/`` to them. Nothing of
Django's request handling runs here (no middleware, session, URL resolver or DRF): the
request is read, ``drivers.api.ingest`` answers it. The web process serves the same paths
through Django (``driverapp.api.views``) with the same answers, for the local configuration.
"""

from __future__ import annotations

import os

import django

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.local")
django.setup()

from django.core import signals  # noqa: E402

from api.callers import client_address  # noqa: E402
from api.control_characters import (  # noqa: E402
    control_character_place_in,
    control_characters_problem,
)
from api.problems import Problem  # noqa: E402
from core.errors import DomainError  # noqa: E402
from core.request_ids import (  # noqa: E402
    request_id_clear,
    request_id_new,
    request_id_set,
    request_id_valid,
)
from drivers.api.ingest import (  # noqa: E402
    LOCATION_PATH,
    MAX_BODY_BYTES,
    OSMAND_PREFIX,
    Answer,
    location_request_answer,
    osmand_request_answer,
    problem_answer,
)

_REASONS = {200: "OK", 400: "Bad Request", 401: "Unauthorized", 403: "Forbidden",
            404: "Not Found", 405: "Method Not Allowed", 409: "Conflict",
            413: "Content Too Large", 422: "Unprocessable Content", 429: "Too Many Requests",
            503: "Service Unavailable"}  # fmt: skip


def _body(environ) -> bytes:
    try:
        length = int(environ.get("CONTENT_LENGTH") or 0)
    except ValueError:
        length = 0
    if length > MAX_BODY_BYTES:
        raise DomainError("invalid_body", f"The body is larger than {MAX_BODY_BYTES} bytes.")
    return environ["wsgi.input"].read(length) if length > 0 else b""


def _answer(environ) -> Answer:
    path, method = environ.get("PATH_INFO", ""), environ.get("REQUEST_METHOD", "")
    if path == "/healthz":  # as the web process's (contract 10.1): it serves, nothing touched
        return Answer(200, b'{"status": "ok"}')
    body = _body(environ)
    query_string, content_type = environ.get("QUERY_STRING", ""), environ.get("CONTENT_TYPE", "")
    # Text is text (contract 1.1), as the web process's middleware has it: before the token
    # or anything else is looked up.
    where = control_character_place_in(
        path=path, query_string=query_string, content_type=content_type, body=body
    )
    if where:
        return problem_answer(control_characters_problem(where))
    if path.rstrip("/") == LOCATION_PATH:
        if method != "POST":
            return problem_answer(Problem(405, "method_not_allowed", f"{method} is not allowed."))
        return location_request_answer(
            authorization=environ.get("HTTP_AUTHORIZATION"),
            address=client_address(environ),
            body=body,
            idempotency_key=environ.get("HTTP_IDEMPOTENCY_KEY"),
        )
    if path.startswith(OSMAND_PREFIX):
        return osmand_request_answer(
            token=path[len(OSMAND_PREFIX) :].strip("/"),
            method=method,
            idempotency_key=environ.get("HTTP_IDEMPOTENCY_KEY"),
            query_string=query_string,
            body=body,
            content_type=content_type,
            address=client_address(environ),
        )
    return problem_answer(Problem(404, "not_found", "The ingest serves position reports only."))


def application(environ, start_response):
    # The signal Django's own handler sends as a request starts: its receiver
    # close_old_connections drops a connection that broke or outlived CONN_MAX_AGE, so a
    # database restart costs one 503, not every request after it. request_finished is not
    # sent: its receivers close caches, reset the URL resolver and clear the request id,
    # none of which this path needs (the id is cleared below), and they cost about 25 us a
    # report, 3 % of what a report costs the ingest.
    signals.request_started.send(sender=__name__, environ=environ)
    # Contract 10.1, as operations.request_ids does in the web process: the caller's well-formed id,
    # else a new one, on the response and in a problem's requestId.
    given = environ.get("HTTP_X_REQUEST_ID")
    request_id = given if request_id_valid(given) else request_id_new()
    request_id_set(request_id)
    try:
        answer = _answer(environ)
    except DomainError as error:
        answer = problem_answer(error)
    finally:
        request_id_clear()
    headers = [
        ("Content-Type", answer.content_type),
        ("Content-Length", str(len(answer.body))),
        ("X-Request-ID", request_id),
        *answer.headers.items(),
    ]
    reason = _REASONS.get(answer.status, "Error")
    start_response(f"{answer.status} {reason}", headers)
    return [answer.body]
