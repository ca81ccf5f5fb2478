"""The Celery application: dispatch notifications, offer timeouts, webhooks, invoicing."""

import logging
import os

from celery import Celery, Task
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
    """

    def apply_async(self, *args, **kwargs):
        try:
            return super().apply_async(*args, **kwargs)
        except OperationalError as exc:
            if self.app.conf.task_always_eager:
                raise  # the task itself failed, in-process: not a publishing problem
            logger.error("broker unreachable: %s not published (%s)", self.name, exc)
            return None


app = Celery("taxi", task_cls=PublishSafeTask)
# The CELERY_* Django settings, read once when Celery first needs its configuration
# (config.celery_settings) rather than looked up on Django's settings object, where
# every option Celery asks for and we do not set costs a failed attribute lookup: a
# dozen of them for each task sent.
app.config_from_object("config.celery_settings")
app.autodiscover_tasks()
