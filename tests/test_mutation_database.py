"""`make mutate`'s children each test in their own copy of the migrated SQLite test
database (tests/mutation_database.py, conftest.py): a copy holds every committed row, even
one still in the write-ahead log; writes to it never reach the shared one; nothing is
copied before the census has migrated it, nor on another database."""

from __future__ import annotations

import os
import sqlite3

from tests.mutation_database import database_copy_for_process, database_copy_remove


def settings_entry(tmp_path, engine="django.db.backends.sqlite3") -> dict:
    return {
        "ENGINE": engine,
        "NAME": str(tmp_path / "mutate.sqlite3"),
        "TEST": {"NAME": str(tmp_path / "test_mutate.sqlite3")},
    }


def test_each_process_tests_in_its_own_copy_with_every_committed_row(tmp_path):
    database = settings_entry(tmp_path)
    template = database["TEST"]["NAME"]
    # Given the migrated test database in WAL mode, its last commit still in the log
    writer = sqlite3.connect(template)
    writer.execute("PRAGMA journal_mode=WAL")
    writer.execute("CREATE TABLE migrated (name TEXT)")
    writer.execute("INSERT INTO migrated VALUES ('0001_initial')")
    writer.commit()
    assert os.path.getsize(f"{template}-wal") > 0
    # When a process asks for its copy
    copy = database_copy_for_process(database)
    # Then the settings name the copy, which holds the row
    assert copy == f"{template}.{os.getpid()}"
    assert database["TEST"]["NAME"] == copy
    with sqlite3.connect(copy) as reader:
        assert reader.execute("SELECT name FROM migrated").fetchall() == [("0001_initial",)]
        reader.execute("DELETE FROM migrated")
    # and what the tests do to it stays in it
    assert writer.execute("SELECT count(*) FROM migrated").fetchone() == (1,)
    writer.close()
    database_copy_remove(copy)
    assert not os.path.exists(copy)
    assert os.path.exists(template)


def test_no_copy_before_the_census_migrated_it_nor_on_postgresql(tmp_path):
    database = settings_entry(tmp_path)
    assert database_copy_for_process(database) is None
    assert database["TEST"]["NAME"] == str(tmp_path / "test_mutate.sqlite3")
    sqlite3.connect(database["TEST"]["NAME"]).close()
    postgres = settings_entry(tmp_path, engine="django.db.backends.postgresql")
    assert database_copy_for_process(postgres) is None
    assert postgres["TEST"]["NAME"] == str(tmp_path / "test_mutate.sqlite3")
