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
    assert app.conf.worker_prefetch_multiplier == 1
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
