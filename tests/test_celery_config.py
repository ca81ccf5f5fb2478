"""Celery's configuration, pinned to what the installed Celery does with it."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from celery.fixups.django import DjangoWorkerFixup
from django.conf import settings
from django.db import connection

from config.celery import app


def test_celery_reads_its_options_from_the_django_settings():
    assert app.conf.task_always_eager == settings.CELERY_TASK_ALWAYS_EAGER
    assert app.conf.task_acks_late is True
    assert app.conf.worker_prefetch_multiplier == 4
    assert app.conf.timezone == "Europe/London"


# Real commits: the fixup would close the connection the test transaction runs in.
@pytest.mark.django_db(transaction=True)
def test_a_worker_keeps_its_database_connection_from_one_task_to_the_next():
    # Celery's Django fixup closes every connection around each task unless
    # CELERY_DB_REUSE_MAX is set (celery/fixups/django.py); reconnecting per task cost
    # more than a dispatch step (bench/bench_dispatch_burst.py).
    fixup = DjangoWorkerFixup(app)
    assert fixup.db_reuse_max == settings.CELERY_DB_REUSE_MAX > 1
    task = SimpleNamespace(request=SimpleNamespace(is_eager=False))
    connection.ensure_connection()
    before = connection.connection

    for _ in range(settings.CELERY_DB_REUSE_MAX - 1):
        fixup.on_task_prerun(sender=task)
        fixup.on_task_postrun(sender=task)

    assert connection.connection is before


@pytest.fixture
def publishing_for_real():
    """Tasks go through the (in-memory) broker instead of running eagerly."""
    eager = app.conf.task_always_eager
    app.conf.task_always_eager = False
    yield
    app.conf.task_always_eager = eager


@pytest.mark.django_db  # it reads each booking's request id (none for these ids)
@pytest.mark.usefixtures("publishing_for_real")
def test_the_dispatcher_publishes_one_task_message_per_booking():
    # Through a real kombu transport (memory://), as a worker would read them.
    from dispatch.relay import dispatch_publish

    with app.connection_for_write() as conn:
        queue = conn.SimpleQueue("dispatch")  # dispatch has its own queue (task_routes)
        while queue.qsize():
            queue.get(timeout=1).ack()

        dispatch_publish([11, 12, 13])

        messages = [queue.get(timeout=1) for _ in range(3)]
        tasks = [m.headers["task"] for m in messages]
        assert tasks == ["dispatch.tasks.booking_dispatch_start"] * 3
        assert [m.payload[0] for m in messages] == [[11], [12], [13]]
        for message in messages:
            message.ack()
        queue.close()


@pytest.mark.usefixtures("publishing_for_real")
@pytest.mark.parametrize(
    ("task_name", "queue_name"),
    [
        ("dispatch.tasks.job_card_send", "dispatch"),
        ("partners.tasks.webhook_delivery_send", "webhooks"),
        ("billing.tasks.invoices_generate_last_week", "billing"),
        ("api.tasks.idempotency_records_purge", "celery"),
    ],
)
def test_each_kind_of_task_waits_in_its_own_queue(task_name, queue_name):
    # A slow partner webhook or an invoice run never queues ahead of a driver's offer.
    import api.tasks  # noqa: F401 - registers the tasks named above
    import billing.tasks  # noqa: F401
    import dispatch.tasks  # noqa: F401
    import partners.tasks  # noqa: F401

    with app.connection_for_write() as conn:
        queues = {name: conn.SimpleQueue(name) for name in settings.CELERY_QUEUE_NAMES}
        for queue in queues.values():
            while queue.qsize():
                queue.get(timeout=1).ack()

        app.send_task(task_name, args=[1, "sms"] if "job_card" in task_name else [])

        depths = {name: queue.qsize() for name, queue in queues.items()}
        assert depths == {name: int(name == queue_name) for name in queues}
        queues[queue_name].get(timeout=1).ack()


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_a_worker_replaces_a_connection_that_broke_since_its_last_task():
    # PostgreSQL restarted between two tasks: the next task must not fail its first query.
    import psycopg

    from config.celery import _database_connection_checked

    connection.ensure_connection()
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        [pid] = cursor.fetchone()
    params = connection.get_connection_params()
    params.pop("server_side_binding", None)
    params.pop("cursor_factory", None)
    with psycopg.connect(**params, autocommit=True) as other:
        other.execute("SELECT pg_terminate_backend(%s)", (pid,))

    task = SimpleNamespace(request=SimpleNamespace(is_eager=False))
    _database_connection_checked(task=task)

    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")
        assert cursor.fetchone() == (1,)
