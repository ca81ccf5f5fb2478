"""Text is text (contract 1.1, issue 35): a NUL byte or another control character in a
request's path, query string, form or JSON strings is 400 ``invalid_input`` before any
view, lookup or database sees it (PostgreSQL refuses NUL in text, which was a 500 at seven
endpoints, the OAuth token endpoint among them). Tab, CR and LF are allowed in bodies.

Three doors use it: Django's middleware below (the web process, and Django's routes on
the mcp process), the ingest process (``drivers.api.ingest_wsgi``, WSGI and ASGI alike,
through :func:`control_character_place_in`) and the MCP gate (``agents.mcp.gate``, the
JSON-RPC body, through :func:`json_has_control_characters`)."""

from __future__ import annotations

import json
import re
from urllib.parse import unquote, unquote_plus

from django.core.exceptions import RequestDataTooBig

from api.problems import Problem, problem_response

# Anywhere in a path or query: C0 controls and DEL.
_IN_URL = re.compile(r"[\x00-\x1f\x7f]")
# In a form or a JSON string: the same less tab, LF and CR.
_IN_BODY = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
# What may be one of those in a JSON document: a raw one, a \u escape below 0x20 or of
# DEL, or the short escapes \b and \f. A cheap first look over the bytes; a document it
# matches is parsed and its strings read (``\\b`` is a backslash and a b, not \b).
_MAYBE_IN_JSON = re.compile(rb"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]|\\u00[01]|\\u007[fF]|\\[bf]")
FORM_CONTENT_TYPE = "application/x-www-form-urlencoded"


def control_characters_refuse(get_response):
    def middleware(request):
        where = control_character_place(request)
        if where:
            return problem_response(control_characters_problem(where))
        return get_response(request)

    return middleware


def control_characters_problem(where: str) -> Problem:
    """400 ``invalid_input`` naming the part of the request ("path", "query", "body")."""
    return Problem(
        400,
        "invalid_input",
        f"The request's {where} contains a control character.",
        errors={where: ["Control characters are not allowed."]},
    )


def control_character_place(request) -> str | None:
    """Which part of the request carries a control character ("path", "query", "body"),
    or None."""
    if _IN_URL.search(request.path):
        return "path"
    for key, values in request.GET.lists():
        if _IN_URL.search(key) or any(_IN_URL.search(value) for value in values):
            return "query"
    content_type = request.content_type or ""
    if request.method in ("POST", "PUT", "PATCH"):
        # The body is read first (and kept), so that a view can still read it after the
        # form has been parsed here.
        body = _body(request)
        if not body:
            return None
        if content_type in ("application/x-www-form-urlencoded", "multipart/form-data"):
            for key, values in request.POST.lists():
                if _IN_BODY.search(key) or any(_IN_BODY.search(value) for value in values):
                    return "body"
        elif content_type.endswith("json") and json_has_control_characters(body):
            return "body"
    return None


def control_character_place_in(
    *, path: str, query_string: str, content_type: str, body: bytes
) -> str | None:
    """The same answer from a request's raw parts (a WSGI environ's ``PATH_INFO``,
    ``QUERY_STRING``, ``CONTENT_TYPE`` and body), for a door without Django's request."""
    if _IN_URL.search(path):
        return "path"
    if _IN_URL.search(unquote(query_string, errors="replace")):
        return "query"
    content_type = content_type.split(";")[0].strip().lower()
    if not body:
        return None
    if content_type == FORM_CONTENT_TYPE:
        if _IN_BODY.search(unquote_plus(body.decode("latin-1"), errors="replace")):
            return "body"
    elif json_has_control_characters(body):
        return "body"
    return None


def json_has_control_characters(body: bytes) -> bool:
    """Whether a JSON body has a control character (other than tab, CR, LF) in a string or
    a key, raw or escaped. A body that is not JSON has one when it holds a raw one."""
    if not _MAYBE_IN_JSON.search(body):
        return False
    try:
        document = json.loads(body)
    except (ValueError, RecursionError):
        return bool(_IN_BODY.search(body.decode("latin-1")))
    pending = [document]
    while pending:
        item = pending.pop()
        if isinstance(item, str):
            if _IN_BODY.search(item):
                return True
        elif isinstance(item, dict):
            pending.extend(item.keys())
            pending.extend(item.values())
        elif isinstance(item, list):
            pending.extend(item)
    return False


def _body(request) -> bytes:
    try:
        return request.body
    except RequestDataTooBig:
        return b""  # the view refuses it (413) as it always has
