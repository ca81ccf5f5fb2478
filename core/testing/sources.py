"""The project's own production modules, for the tests that scan source for a rule typed
twice: the packages of [tool.importlinter] root_packages in pyproject.toml, less their
tests, their test support (core/testing) and their migrations. Copies of the tree (`make
mutate`'s mutants/, a virtualenv, bench/) are not the project's packages, so they are never
scanned."""

from __future__ import annotations

import tomllib
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def project_packages() -> list[str]:
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text())
    return list(pyproject["tool"]["importlinter"]["root_packages"])


def production_modules(*, exclude: tuple[str, ...] = ()) -> Iterator[tuple[str, str]]:
    """(path relative to the project, text) of each production module, in path order;
    ``exclude`` drops paths starting with any of its prefixes."""
    for package in project_packages():
        for path in sorted((ROOT / package).rglob("*.py")):
            relative = path.relative_to(ROOT).as_posix()
            if any(part in relative for part in ("/tests/", "/testing/", "/migrations/")):
                continue
            if relative.startswith(exclude):
                continue
            yield relative, path.read_text()
