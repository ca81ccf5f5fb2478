"""Each mutmut child's own test database (`make mutate`, conftest.py).

mutmut tests two mutants at a time, each in a child forked from one process. On one shared
test database the two would flush each other's rows and wait on each other's locks; a fresh
database each would cost the migrations (15-35 s) per mutant. So the first run (mutmut's
census of which test reaches which function, before any child) migrates the SQLite test
database, and every later run tests in a copy of it.
"""

from __future__ import annotations

import os
import sqlite3


def database_copy_for_process(database: dict) -> str | None:
    """Point ``database`` (a settings.DATABASES entry) at a copy of its SQLite test database
    made for this process, and return the copy's path; None (and no change) when it is not
    a SQLite file that exists yet."""
    template = database.get("TEST", {}).get("NAME")
    if "sqlite3" not in database["ENGINE"] or not template or not os.path.exists(template):
        return None
    copy = f"{template}.{os.getpid()}"
    # The backup API, not a file copy: the template is in WAL mode and its last writes may
    # still be in the -wal file.
    source, target = sqlite3.connect(template), sqlite3.connect(copy)
    try:
        source.backup(target)
    finally:
        source.close()
        target.close()
    database["TEST"]["NAME"] = copy
    return copy


def database_copy_remove(copy: str) -> None:
    for path in (copy, f"{copy}-wal", f"{copy}-shm"):
        if os.path.exists(path):
            os.remove(path)
