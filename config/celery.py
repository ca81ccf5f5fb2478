"""The Celery application: dispatch, notifications, offer timeouts, webhooks, invoicing."""

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.local")

app = Celery("taxi")
# Celery's options are the CELERY_* Django settings (CELERY_TASK_ALWAYS_EAGER is
# task_always_eager, and so on).
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
