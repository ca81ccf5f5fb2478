"""`make mutate` tests the mutated copy of the project, not the project (issue 37).

mutmut copies source_paths into mutants/ and runs the tests there. A project package left
out of source_paths is imported from the unmutated tree, and so was the settings package
while manage.py was not copied: pytest-django puts the folder holding manage.py first on
sys.path, and found it above mutants/. config.logins' 47 mutants then had no test reaching
them (0 of 47 recorded in the README before this).
"""

from __future__ import annotations

import re
import sysconfig
import tomllib
from pathlib import Path

from django.apps import apps

ROOT = Path(__file__).resolve().parent.parent
# Installed packages: the virtualenv may sit inside the project folder (`make install`'s .venv).
INSTALLED = Path(sysconfig.get_paths()["purelib"]).resolve()
MUTMUT = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["mutmut"]


def test_every_project_package_is_copied_for_the_mutants():
    project_apps = {
        app.name.split(".")[0]
        for app in apps.get_app_configs()
        if Path(app.path).resolve().is_relative_to(ROOT)
        and not Path(app.path).resolve().is_relative_to(INSTALLED)
    }
    assert project_apps, "no project app found"
    assert project_apps | {"config"} <= set(MUTMUT["source_paths"])


def test_manage_py_is_copied_so_the_settings_are_the_mutated_ones():
    assert "manage.py" in MUTMUT["also_copy"]


def test_every_mutated_file_is_in_a_copied_package():
    copied = set(MUTMUT["source_paths"])
    assert [path for path in MUTMUT["only_mutate"] if path.split("/")[0] not in copied] == []


def test_every_familys_own_tests_are_in_mutmuts_test_selection():
    """mutmut runs only the files of ``pytest_add_cli_args_test_selection``: a family's
    test (``MUTATE_TESTS_<family>`` in the Makefile) missing there is silently never run,
    and its mutants count as survivors (tests/test_stale_quotes.py was, for agents)."""
    makefile = (ROOT / "Makefile").read_text().replace("\\\n", " ")
    families = re.findall(r"^MUTATE_TESTS_(\w+)\s*:=\s*(.*)$", makefile, re.MULTILINE)
    assert len(families) >= 9
    selection = set(MUTMUT["pytest_add_cli_args_test_selection"])
    for family, files in families:
        for name in files.split():
            assert name in selection, (family, name)
            assert (ROOT / name).is_file(), (family, name)
