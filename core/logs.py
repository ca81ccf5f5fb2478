"""Structured logs (contract 10.1): one JSON object a line in production.

Every log line, the project's own and every library's (they log through the standard
``logging`` module), is formatted by structlog's ``ProcessorFormatter`` with: the time
(UTC), level, logger, the request id (``request_id``, ``core.request_ids``), whatever the
current request bound (``account``: the caller's account slug, bound where the caller is
known, ``api.callers.caller_from_request`` and the MCP server), and nothing secret:
:func:`redact` masks the values of secret-looking keys, bearer tokens, signing secrets and
phone numbers wherever they appear, tracebacks included.

``LOG_FORMAT`` chooses ``json`` (production's default) or ``console`` (key=value lines, the
local default); both carry the same fields.
"""

from __future__ import annotations

import os
import re
from typing import Any

import structlog

from core.request_ids import current_request_id

REDACTED = "[redacted]"
# Keys whose values are never written: credentials of every kind.
SECRET_KEY_NAME = re.compile(
    r"secret|token|password|passwd|authorization|api[_-]?key|signature|cookie|session|card",
    re.IGNORECASE,
)
# Credentials inside free text: "Bearer <token>", Standard Webhooks secrets, "key=value".
SECRET_IN_TEXT = (
    (re.compile(r"(?i)\b(bearer)\s+[A-Za-z0-9._~+/=-]+"), r"\1 " + REDACTED),
    (re.compile(r"\bwhsec_[A-Za-z0-9+/=]+"), "whsec_" + REDACTED),
    (
        re.compile(
            r"(?i)\b(secret|token|password|api[_-]?key|signing_secret|auth_token)"
            r"(['\"]?\s*[=:]\s*['\"]?)[^\s'\",}]+"
        ),
        r"\1\2" + REDACTED,
    ),
)
# A phone number: international (+44 7700 900123) or national (07700 900123), 9-15 digits
# with optional single spaces or hyphens; kept: the last two digits.
PHONE_NUMBER = re.compile(r"(?<![\w.+-])(?:\+\d|0)(?:[ -]?\d){8,14}(?![\w])")


def _phone_masked(match: re.Match) -> str:
    digits = re.sub(r"\D", "", match.group(0))
    return f"[phone ..{digits[-2:]}]"


def redact_text(text: str) -> str:
    for pattern, replacement in SECRET_IN_TEXT:
        text = pattern.sub(replacement, text)
    return PHONE_NUMBER.sub(_phone_masked, text)


def _redacted(key: str, value: Any) -> Any:
    if SECRET_KEY_NAME.search(key):
        return REDACTED
    if isinstance(value, str):
        return redact_text(value)
    if isinstance(value, dict):
        return {k: _redacted(str(k), v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_redacted("", v) for v in value]
    return value


def redact(logger, method_name: str, event_dict: dict) -> dict:
    """structlog processor: no secret and no phone number leaves in clear."""
    return {key: _redacted(key, value) for key, value in event_dict.items()}


def add_request_id(logger, method_name: str, event_dict: dict) -> dict:
    request_id = current_request_id()
    if request_id:
        event_dict.setdefault("request_id", request_id)
    return event_dict


# For every record from the standard logging module (that is: all of them).
PRE_CHAIN = [
    structlog.contextvars.merge_contextvars,
    structlog.stdlib.add_log_level,
    structlog.stdlib.add_logger_name,
    structlog.processors.TimeStamper(fmt="iso", utc=True, key="time"),
    add_request_id,
]


def _formatter(renderer) -> structlog.stdlib.ProcessorFormatter:
    return structlog.stdlib.ProcessorFormatter(
        foreign_pre_chain=PRE_CHAIN,
        processors=[
            structlog.stdlib.ProcessorFormatter.remove_processors_meta,
            structlog.processors.format_exc_info,
            redact,
            renderer,
        ],
    )


def json_formatter() -> structlog.stdlib.ProcessorFormatter:
    """LOGGING formatter factory: one JSON object a line."""
    return _formatter(structlog.processors.JSONRenderer())


def console_formatter() -> structlog.stdlib.ProcessorFormatter:
    """LOGGING formatter factory: readable key=value lines, same fields."""
    return _formatter(structlog.dev.ConsoleRenderer(colors=False))


def server_formatter() -> structlog.stdlib.ProcessorFormatter:
    """Formatter factory for the servers' own lines (gunicorn's and uvicorn's through
    ``config/gunicorn.py``, granian's through ``config/granian-logging.json``), read before
    Django's settings are: ``LOG_FORMAT`` from the environment, JSON unless it says
    ``console``, as in production."""
    log_format = os.environ.get("LOG_FORMAT", "json")
    return console_formatter() if log_format == "console" else json_formatter()


def logging_config(log_format: str, level: str) -> dict:
    """The LOGGING setting for ``LOG_FORMAT`` (``json`` or ``console``)."""
    if log_format not in {"json", "console"}:
        raise ValueError(f"LOG_FORMAT must be json or console, not {log_format!r}")
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "formatters": {"structured": {"()": f"core.logs.{log_format}_formatter"}},
        "handlers": {"console": {"class": "logging.StreamHandler", "formatter": "structured"}},
        "root": {"handlers": ["console"], "level": level},
        "loggers": {
            "django.db.backends": {"level": "INFO"},
        },
    }


def account_bind(account) -> None:
    """The caller's account appears in every further log line of this request."""
    if account is not None:
        structlog.contextvars.bind_contextvars(account=getattr(account, "slug", str(account)))
