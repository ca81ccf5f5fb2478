"""What every settings module derives from: the project's folder, the environment reader,
and the two facts of the deployment that domain defaults depend on (whether Redis is there,
and so whether Celery tasks run in-process). ``config.settings.base`` and the domain
modules (``config.settings.domains``) import them from here.
"""

from pathlib import Path

import environ

BASE_DIR = Path(__file__).resolve().parent.parent.parent

env = environ.Env()

REDIS_URL = env("REDIS_URL", default="")
CELERY_TASK_ALWAYS_EAGER = env.bool("CELERY_TASK_ALWAYS_EAGER", default=not REDIS_URL)
