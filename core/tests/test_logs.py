"""JSON logs (contract 10.1): request id, account, and never a secret or a phone in clear."""

from __future__ import annotations

import json
import logging

import structlog

from core.logs import json_formatter, logging_config, redact_text, server_formatter
from core.request_ids import request_id_clear, request_id_set


def _formatted(message: str, *args, exc_info=None) -> dict:
    record = logging.LogRecord(
        "dispatch.notifications", logging.INFO, __file__, 1, message, args, exc_info
    )
    return json.loads(json_formatter().format(record))


def test_a_line_is_one_json_object_with_the_request_id_and_account():
    request_id_set("trace-9")
    structlog.contextvars.bind_contextvars(account="acme-taxis")
    try:
        line = _formatted("job card sent for %s", "DTD-ABC123")
    finally:
        request_id_clear()
        structlog.contextvars.clear_contextvars()

    assert line["event"] == "job card sent for DTD-ABC123"
    assert line["request_id"] == "trace-9"
    assert line["account"] == "acme-taxis"
    assert line["level"] == "info"
    assert line["logger"] == "dispatch.notifications"
    assert line["time"].endswith("Z")


def test_phone_numbers_never_appear_in_clear():
    for phone in ("+447700900123", "+44 7700 900123", "07700 900123", "020 7946 0018"):
        line = json.dumps(_formatted("SMS to %s failed", phone))
        digits = phone.replace(" ", "")
        assert digits not in line.replace(" ", "")
        assert "[phone ..23]" in line or "[phone ..18]" in line


def test_secrets_never_appear_in_clear_even_in_tracebacks():
    try:
        raise RuntimeError("signing_secret=s3cr3t-value while calling with Bearer abc.DEF123")
    except RuntimeError:
        import sys

        line = json.dumps(_formatted("webhook failed; token: tok_live_99", exc_info=sys.exc_info()))

    for secret in ("s3cr3t-value", "abc.DEF123", "tok_live_99"):
        assert secret not in line
    assert "RuntimeError" in line


def test_ordinary_numbers_are_left_alone():
    text = "booking DTD-4821 at 2026-11-25T14:05:00Z, fare 23.40, 12345 ms"
    assert redact_text(text) == text


def test_production_logs_json_and_local_logs_key_values(settings):
    assert settings.LOGGING["formatters"]["structured"]["()"].endswith("console_formatter")
    production = logging_config("json", "INFO")
    assert production["formatters"]["structured"]["()"] == "core.logs.json_formatter"


def test_the_servers_own_lines_follow_log_format_from_the_environment(monkeypatch):
    """gunicorn's, uvicorn's and granian's lines (config/gunicorn.py,
    config/granian-logging.json), formatted before Django's settings are read."""
    record = logging.LogRecord("_granian", logging.INFO, __file__, 1, "Started worker-1", (), None)
    monkeypatch.delenv("LOG_FORMAT", raising=False)
    assert json.loads(server_formatter().format(record))["event"] == "Started worker-1"
    monkeypatch.setenv("LOG_FORMAT", "console")
    line = server_formatter().format(record)
    assert "Started worker-1" in line
    assert not line.startswith("{")
