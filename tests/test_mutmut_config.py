"""`make mutate` tests the mutated copy of the project, not the project (issue 37).

mutmut copies source_paths into mutants/ and runs the tests there. A project package left
out of source_paths is imported from the unmutated tree, and so was the settings package
while manage.py was not copied: pytest-django puts the folder holding manage.py first on
sys.path, and found it above mutants/. config.logins' 47 mutants then had no test reaching
them (0 of 47 recorded in the README before this).
"""

from __future__ import annotations

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
