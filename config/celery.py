"""The Celery application: dispatch notifications, offer timeouts, webhooks, invoicing."""

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.local")

app = Celery("taxi")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
