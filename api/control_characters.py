"""Text is text (contract 1.1, issue 35): a NUL byte or another control character in a
request's path, query string, form or JSON strings is 400 ``invalid_input`` before any
view, lookup or database sees it (PostgreSQL refuses NUL in text, which was a 500 at seven
endpoints, the OAuth token endpoint among them). Tab, CR and LF are allowed in bodies."""

from __future__ import annotations

import re

from django.core.exceptions import RequestDataTooBig

from api.problems import Problem, problem_response

# Anywhere in a path or query: C0 controls and DEL.
_IN_URL = re.compile(r"[\x00-\x1f\x7f]")
# In a form or a JSON string: the same less tab, LF and CR.
_IN_BODY = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
# A JSON string escape of one of those (raw ones are not valid JSON and fail parsing).
_ESCAPED_IN_JSON = re.compile(rb"\\u00(?:0[0-8bcefBCEF]|1[0-9a-fA-F])|\\u007[fF]")


def control_characters_refuse(get_response):
    def middleware(request):
        where = control_character_place(request)
        if where:
            return problem_response(
                Problem(
                    400,
                    "invalid_input",
                    f"The request's {where} contains a control character.",
                    errors={where: ["Control characters are not allowed."]},
                )
            )
        return get_response(request)

    return middleware


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
        elif content_type.endswith("json") and _ESCAPED_IN_JSON.search(body):
            return "body"
    return None


def _body(request) -> bytes:
    try:
        return request.body
    except RequestDataTooBig:
        return b""  # the view refuses it (413) as it always has
