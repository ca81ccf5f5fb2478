"""A dotted name a docstring gives in double backquotes resolves (issue 38: two named
functions that did not exist), as the README's do (core/tests/test_readme_names.py).

Checked: names whose module part imports (``drivers.api.ingest.report_once``); model
labels and permission names (``drivers.PositionSample``) name no module and are left.
"""

from __future__ import annotations

import ast
import importlib
import re

from core.testing.sources import production_modules, project_packages

NAME = re.compile(r"``([A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+)(?:\(\))?``")


def _unresolved(name: str) -> bool:
    parts = name.split(".")
    if parts[0] not in project_packages():
        return False
    for cut in range(len(parts), 1, -1):
        try:
            target = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        for attribute in parts[cut:]:
            if not hasattr(target, attribute):
                return True
            target = getattr(target, attribute)
        return False
    return False  # no submodule in it: a model label or a permission, not a module path


def test_every_dotted_name_in_a_docstring_resolves():
    documented = ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef
    unresolved = sorted(
        f"{relative}: {match.group(1)}"
        for relative, text in production_modules()
        for node in ast.walk(ast.parse(text))
        if isinstance(node, documented)
        for match in NAME.finditer(ast.get_docstring(node) or "")
        if _unresolved(match.group(1))
    )
    assert unresolved == []
