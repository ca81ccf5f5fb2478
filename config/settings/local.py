"""Local development: plain HTTP on loopback, SQLite unless DATABASE_URL says otherwise."""

import os
import secrets
from pathlib import Path

from .base import *  # noqa: F403
from .base import BASE_DIR, env


def secret_key_kept_in(path: Path) -> str:
    """The key stored in ``path``; on first use, a new random key written there (mode 600).

    Signed links (job cards, status pages) must survive a restart, and a key that ships in
    the source could forge them (issue 13), so each checkout makes its own once.
    """
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        return path.read_text().strip()
    with os.fdopen(fd, "w") as secret_file:
        key = secrets.token_urlsafe(50)
        secret_file.write(key + "\n")
    return key


DEBUG = env.bool("DJANGO_DEBUG", default=True)
SECRET_KEY = env("SECRET_KEY", default="") or secret_key_kept_in(
    Path(env("SECRET_KEY_FILE", default=str(BASE_DIR / ".secret_key")))
)
SEED_DEMO_BACK_OFFICE_USER = True
WEBHOOK_ALLOW_PRIVATE_NETWORKS = env.bool("WEBHOOK_ALLOW_PRIVATE_NETWORKS", default=True)
