"""The JSON body parser of every API view: bad JSON of any shape is a 400, never a 5xx.

DRF's own parser lets two kinds of hostile body through to a 500 (issue 13, contract 1):
nesting deep enough to exhaust Python's recursion (2,000 brackets, 4 KB), and numbers that
are not finite or too long to mean anything (``1e400`` is infinity, a 400-digit integer
breaks decimal arithmetic downstream). Each is refused here as 400 ``invalid_body``.

Lone UTF-16 surrogates (``"\\ud800"``) are valid JSON and pass: the input serializers
refuse them field by field (400 ``invalid_input`` naming the field), and intake rejects
the one job that holds them (contract 4.1), which a whole-body refusal here would not
allow.
"""

from __future__ import annotations

import json
import math

from django.conf import settings
from rest_framework.parsers import JSONParser

# Deeper than any request the API accepts (an intake batch is about four levels).
MAX_DEPTH = 32
# Longer number literals mean nothing to a taxi booking (a fare, a count, a coordinate).
MAX_NUMBER_LENGTH = 40


def _refuse(detail: str):
    # Imported here: api.problems imports DRF's views, whose settings import this module.
    from api.problems import Problem

    return Problem(400, "invalid_body", detail)


def _parse_int(literal: str) -> int:
    if len(literal) > MAX_NUMBER_LENGTH:
        raise _refuse(f"A number in the body has more than {MAX_NUMBER_LENGTH} characters.")
    return int(literal)


def _parse_float(literal: str) -> float:
    if len(literal) > MAX_NUMBER_LENGTH:
        raise _refuse(f"A number in the body has more than {MAX_NUMBER_LENGTH} characters.")
    value = float(literal)
    if not math.isfinite(value):
        raise _refuse(f"The number {literal} is too large.")
    return value


def _parse_constant(name: str):
    raise _refuse(f"{name} is not a JSON number.")


def _check_depth(document) -> None:
    """Refuse nesting deeper than MAX_DEPTH."""
    stack = [(document, 1)]
    while stack:
        value, depth = stack.pop()
        if isinstance(value, dict | list):
            if depth > MAX_DEPTH:
                raise _refuse(f"The body is nested more than {MAX_DEPTH} levels deep.")
            stack.extend((inner, depth + 1) for inner in _children(value))


def _children(value):
    return value.values() if isinstance(value, dict) else value


def json_body_parse(raw: bytes, encoding: str = "utf-8"):
    """The JSON document of a request body, or 400 ``invalid_body`` (a :class:`Problem`)
    for anything this module refuses: the API's parser and the MCP door (agents.mcp.gate)
    both read bodies through it."""
    try:
        document = json.loads(
            raw.decode(encoding),
            parse_int=_parse_int,
            parse_float=_parse_float,
            parse_constant=_parse_constant,
        )
    except RecursionError:
        raise _refuse(f"The body is nested more than {MAX_DEPTH} levels deep.") from None
    except ValueError as exc:  # also UnicodeDecodeError and json.JSONDecodeError
        raise _refuse(f"The body is not valid JSON: {exc}") from None
    _check_depth(document)
    return document


class GuardedJSONParser(JSONParser):
    def parse(self, stream, media_type=None, parser_context=None):
        parser_context = parser_context or {}
        encoding = parser_context.get("encoding", settings.DEFAULT_CHARSET)
        return json_body_parse(stream.read(), encoding)
