"""Every dotted name the README (and the apps' own READMEs) gives resolves: a module, or
an attribute of one. A map whose names no longer exist sends a newcomer nowhere."""

from __future__ import annotations

import importlib
import importlib.util
import re
from pathlib import Path

import pytest
from django.apps import apps

ROOT = Path(__file__).resolve().parents[2]
APPS = (
    "agents", "api", "billing", "bookings", "config", "core", "dispatch", "drivers", "guards",
    "partners", "pricing",
)  # fmt: skip
# Not the copies that `make mutate` leaves in mutants/ (stale once the project moves on).
READMES = [
    ROOT / "README.md",
    *sorted(p for p in ROOT.glob("*/README.md") if p.parent.name != "mutants"),
]
# `app.module.name`, in backticks or in the diagrams of code blocks, not inside a path or
# a URL (``pricing/data/x.json``, ``example.co.uk``).
DOTTED = re.compile(r"(?<![\w/.-])((?:{})(?:\.[A-Za-z_][A-Za-z0-9_]*)+)".format("|".join(APPS)))


def dotted_names() -> list[tuple[str, str]]:
    names = set()
    for readme in READMES:
        for match in DOTTED.finditer(readme.read_text()):
            names.add((readme.relative_to(ROOT).as_posix(), match.group(1)))
    return sorted(names)


def resolves(name: str) -> bool:
    """A module, an attribute of one, or a model as Django names it (``app_label.Model``,
    then any attribute of the model)."""
    parts = name.split(".")
    if len(parts) >= 2 and parts[1][:1].isupper():
        try:
            target = apps.get_model(parts[0], parts[1])
        except LookupError:
            return False
        return _attributes_resolve(target, parts[2:])
    for cut in range(len(parts), 0, -1):
        module = ".".join(parts[:cut])
        try:
            if importlib.util.find_spec(module) is None:
                continue
        except ImportError:
            continue
        if cut == len(parts):
            return True  # a module, found without running it (settings modules need env)
        return _attributes_resolve(importlib.import_module(module), parts[cut:])
    return False


def _attributes_resolve(target, attributes: list[str]) -> bool:
    for attribute in attributes:
        if not hasattr(target, attribute):
            return False
        target = getattr(target, attribute)
    return True


def test_the_readmes_name_things():
    assert len(dotted_names()) > 50


@pytest.mark.parametrize(("readme", "name"), dotted_names())
def test_a_dotted_name_in_a_readme_resolves(readme, name):
    assert resolves(name), f"{readme} names {name}, which does not resolve"
