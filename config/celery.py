"""The Celery application: dispatch notifications, offer timeouts, webhooks, invoicing."""

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.local")

app = Celery("taxi")
# The CELERY_* Django settings, read once when Celery first needs its configuration
# (config.celery_settings) rather than looked up on Django's settings object, where
# every option Celery asks for and we do not set costs a failed attribute lookup: a
# dozen of them for each task sent.
app.config_from_object("config.celery_settings")
app.autodiscover_tasks()
