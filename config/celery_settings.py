"""Celery's configuration: the ``CELERY_*`` Django settings under Celery's own names.

Imported by Celery the first time it reads its configuration, after Django's settings
are set up; ``CELERY_TASK_ALWAYS_EAGER`` becomes ``task_always_eager`` and so on. A
``redis://`` broker goes through config.broker's transport (one client per channel)
unless ``CELERY_BROKER_TRANSPORT`` says otherwise.
"""

from django.conf import settings

globals().update(
    {
        name.removeprefix("CELERY_").lower(): getattr(settings, name)
        for name in dir(settings)
        if name.startswith("CELERY_")
    }
)

if str(globals().get("broker_url", "")).startswith("redis://"):
    globals().setdefault("broker_transport", "config.broker:Transport")
