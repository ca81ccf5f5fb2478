"""Queue a Celery task by its registered name once the current transaction has committed.

A service that enqueues its own app's task cannot import that app's tasks module, which
imports the service to run it: it names the task (``"dispatch.tasks.offer_expire"``)
instead. Each such app imports its tasks module once Django's app registry is ready
(``AppConfig.ready``), so every process (web, worker, dispatcher, management commands)
has the name registered, and the registered task's own ``apply_async`` keeps Celery's
eager mode (the embedded default) and the project's publish guard
(``config.celery.PublishSafeTask``).
"""

from __future__ import annotations

from celery import current_app
from django.db import transaction


def task_enqueue_on_commit(
    name: str, *args, countdown: int | None = None, robust: bool = False, **kwargs
) -> None:
    """Queue the task registered as ``name`` with ``args`` and ``kwargs`` after commit
    (at once outside a transaction); ``countdown`` delays it by that many seconds.

    Guarantees: an unregistered name fails here, in the caller's transaction, never later
    as a message no worker knows. ``robust`` as ``transaction.on_commit``'s: a failure to
    queue is logged, not raised, after the commit.
    """
    task = current_app.tasks[name]
    # apply_async is what delay calls; a countdown of None is no delay.
    transaction.on_commit(
        lambda: task.apply_async(args, kwargs, countdown=countdown), robust=robust
    )
