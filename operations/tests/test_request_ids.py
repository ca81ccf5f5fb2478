"""X-Request-ID (contract 10.1): echoed when well formed, else made; in problem JSON, in
log lines and in the Celery tasks a request starts."""

from __future__ import annotations

import json
import logging

import pytest
from celery import current_app

from api.tasks import idempotency_records_purge
from core.request_ids import current_request_id, request_id_clear, request_id_set
from operations.request_ids import (
    TASK_HEADER,
    _task_carries_request_id,
    _task_forgets_request_id,
    _task_runs_under_request_id,
)
from partners.tasks import webhook_delivery_send


@pytest.mark.parametrize("given", ["abc", "A.b-c_9", "x" * 200])
def test_a_well_formed_caller_id_is_echoed(client, given):
    response = client.get("/healthz", HTTP_X_REQUEST_ID=given)

    assert response["X-Request-ID"] == given


@pytest.mark.parametrize("given", ["x" * 201, "has space", "semi;colon", "ünï", "a/b"])
def test_a_malformed_caller_id_is_replaced_by_a_new_one(client, given):
    response = client.get("/healthz", HTTP_X_REQUEST_ID=given)

    made = response["X-Request-ID"]
    assert made != given
    assert 1 <= len(made) <= 200
    assert made.isalnum()


def test_each_request_without_an_id_gets_its_own(client):
    first = client.get("/healthz")["X-Request-ID"]
    second = client.get("/healthz")["X-Request-ID"]

    assert first
    assert second
    assert first != second


def test_an_error_response_carries_the_id_in_its_problem_json(client):
    response = client.get("/api/public/v1/no-such-thing", HTTP_X_REQUEST_ID="trace-42")

    assert response.status_code == 404
    assert response["Content-Type"] == "application/problem+json"
    assert response.json()["requestId"] == "trace-42"
    assert response["X-Request-ID"] == "trace-42"


class _Lines(logging.Handler):
    """Formats each record as it is logged, as the console handler does."""

    def __init__(self):
        from core.logs import json_formatter

        super().__init__(level=logging.DEBUG)
        self.setFormatter(json_formatter())
        self.lines: list[dict] = []

    def emit(self, record):
        self.lines.append(json.loads(self.format(record)))


def test_the_log_lines_of_a_request_carry_its_id(client):
    handler = _Lines()
    logging.getLogger().addHandler(handler)
    try:
        client.get("/api/public/v1/no-such-thing", HTTP_X_REQUEST_ID="trace-log-7")
    finally:
        logging.getLogger().removeHandler(handler)

    assert handler.lines
    assert all(line["request_id"] == "trace-log-7" for line in handler.lines)


def test_a_task_published_during_a_request_carries_its_id_to_the_worker():
    task = webhook_delivery_send
    headers: dict = {}
    request_id_set("trace-task-1")
    try:
        _task_carries_request_id(headers=headers)
    finally:
        request_id_clear()
    assert headers[TASK_HEADER] == "trace-task-1"

    # The worker side: the task runs under the id in its message, then forgets it.
    task.push_request(is_eager=False, **headers)
    try:
        _task_runs_under_request_id(task=task)
        assert current_request_id() == "trace-task-1"
        _task_forgets_request_id(task=task)
        assert current_request_id() is None
    finally:
        task.pop_request()


def test_an_eager_task_keeps_the_id_of_the_request_it_runs_in():
    task = webhook_delivery_send
    request_id_set("trace-outer")
    task.push_request(is_eager=True)
    try:
        _task_runs_under_request_id(task=task)
        _task_forgets_request_id(task=task)
        assert current_request_id() == "trace-outer"
    finally:
        task.pop_request()
        request_id_clear()


def test_a_real_message_carries_the_id_in_its_headers(settings):
    # Through the (in-memory) kombu transport, as a worker would read the message.
    eager = current_app.conf.task_always_eager
    current_app.conf.task_always_eager = False
    try:
        with current_app.connection_for_write() as conn:
            queue = conn.SimpleQueue("celery")
            while queue.qsize():
                queue.get(timeout=1).ack()
            request_id_set("trace-message-3")
            try:
                idempotency_records_purge.delay()
            finally:
                request_id_clear()
            message = queue.get(timeout=2)
            message.ack()
    finally:
        current_app.conf.task_always_eager = eager

    assert message.headers[TASK_HEADER] == "trace-message-3"


def _asgi_call(app, headers: list[tuple[bytes, bytes]]) -> list[dict]:
    import asyncio

    sent: list[dict] = []

    async def receive():
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message):
        sent.append(message)

    scope = {"type": "http", "method": "POST", "path": "/mcp", "headers": headers}
    asyncio.run(app(scope, receive, send))
    return sent


def test_the_mcp_server_beside_django_gets_the_same_request_ids():
    from operations.request_ids import RequestIdASGI

    seen_ids = []

    async def mcp_like(scope, receive, send):
        seen_ids.append(current_request_id())  # what its logs and problem JSON would carry
        await send({"type": "http.response.start", "status": 401, "headers": []})
        await send({"type": "http.response.body", "body": b"{}"})

    app = RequestIdASGI(mcp_like)
    sent = _asgi_call(app, [(b"x-request-id", b"agent-call-1")])
    assert dict(sent[0]["headers"])[b"x-request-id"] == b"agent-call-1"
    assert seen_ids == ["agent-call-1"]

    sent = _asgi_call(app, [(b"x-request-id", b"bad id with spaces")])
    made = dict(sent[0]["headers"])[b"x-request-id"].decode()
    assert made != "bad id with spaces"
    assert made == seen_ids[-1]


def test_the_id_is_forgotten_once_the_response_is_closed(client):
    # Django sends request_finished when the server closes the response; the next request
    # this thread serves (or a task it runs between requests) must not inherit the id.
    response = client.get("/healthz", HTTP_X_REQUEST_ID="trace-done-1")

    assert response["X-Request-ID"] == "trace-done-1"
    assert current_request_id() is None
