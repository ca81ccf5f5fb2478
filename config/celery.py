"""The Celery application: dispatch, notifications, offer timeouts, webhooks, invoicing."""

import logging
import os

from celery import Celery, Task
from celery.signals import task_prerun
from django.db import close_old_connections
from kombu.exceptions import OperationalError

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.local")

logger = logging.getLogger(__name__)


class PublishSafeTask(Task):
    """A task whose message failing to reach the broker is logged, not raised.

    Tasks are published after the transaction that needs them has committed (a booking,
    an offer, a webhook delivery): the row is already the record, and the periodic tasks
    pick up what was never handed over (``bookings_dispatch_overdue``,
    ``webhook_deliveries_due_send``, ``offers_expire_overdue``). A broker that is down
    must therefore not turn a committed booking into a 500 (contract 1.4).

    A caller whose own transaction must roll back when the message is not sent (the
    dispatcher's claim, ``dispatch.relay``) passes ``raise_broker_errors=True``.
    """

    def apply_async(self, *args, raise_broker_errors: bool = False, **kwargs):
        try:
            return super().apply_async(*args, **kwargs)
        except OperationalError as exc:
            if raise_broker_errors or self.app.conf.task_always_eager:
                raise  # the caller rolls back, or the task itself failed in-process
            logger.error("broker unreachable: %s not published (%s)", self.name, exc)
            return None


app = Celery("taxi", task_cls=PublishSafeTask)
# Celery's options are the CELERY_* Django settings (CELERY_TASK_ALWAYS_EAGER is
# task_always_eager, and so on).
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


@task_prerun.connect
def _database_connection_checked(task=None, **kwargs) -> None:
    """As Django does before each request (CONN_HEALTH_CHECKS): a connection that broke
    since the worker's last task (PostgreSQL restarted) is replaced before this task uses
    it, instead of failing the task's first query. One ``SELECT 1`` when the connection is
    reused. Not for a task run eagerly inside a request or a transaction."""
    if task is not None and not task.request.is_eager:
        close_old_connections()
