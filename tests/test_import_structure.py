"""The arrows between apps are stated, not dodged (issue 26).

import-linter (pyproject.toml) checks the arrows between the project's apps. An import of
a project module inside a function hides a cycle from Python, not from the linter, and
used to be how cycles between apps were dodged; the few left are listed here with their
reason, and a new one fails until it is given one (or moved to the module top).
"""

from __future__ import annotations

import ast
import tomllib
from pathlib import Path

from django.apps import apps

ROOT = Path(__file__).resolve().parent.parent
APP_REGISTRY = "connected when Django's app registry is ready (AppConfig.ready)"
OWN_TASKS = (
    "registers the app's Celery tasks in every process once the registry is ready: its "
    "services queue them by name (core.task_queue), as the tasks module imports them"
)

# (file, function, imported module) -> why it is imported inside the function.
FUNCTION_LEVEL_IMPORTS: dict[tuple[str, str, str], str] = {
    ("api/apps.py", "ready", "api.schema"): APP_REGISTRY,
    ("drivers/apps.py", "ready", "drivers.tokens"): APP_REGISTRY,
    ("drivers/apps.py", "ready", "drivers.positions.revocations"): APP_REGISTRY,
    ("operations/apps.py", "ready", "operations.request_ids"): APP_REGISTRY,
    ("partners/apps.py", "ready", "dispatch.signals"): APP_REGISTRY,
    ("partners/apps.py", "ready", "partners.receivers"): APP_REGISTRY,
    ("pricing/apps.py", "ready", "pricing.catalogue"): APP_REGISTRY,
    ("api/parsers.py", "_refuse", "api.problems"): (
        "DRF reads DEFAULT_PARSER_CLASSES, this module, while rest_framework.views loads, "
        "and api.problems imports rest_framework.views"
    ),
    ("billing/apps.py", "ready", "billing.tasks"): OWN_TASKS,
    ("dispatch/apps.py", "ready", "dispatch.tasks"): OWN_TASKS,
    ("partners/apps.py", "ready", "partners.tasks"): OWN_TASKS,
    ("billing/apps.py", "ready", "billing.checks"): (
        "registers billing's system checks (check --deploy) once the registry is ready"
    ),
    ("dispatch/apps.py", "ready", "billing.signals"): APP_REGISTRY,
    ("dispatch/apps.py", "ready", "dispatch.receivers"): APP_REGISTRY,
    ("dispatch/apps.py", "ready", "bookings.signals"): APP_REGISTRY,
    ("dispatch/apps.py", "ready", "drivers.signals"): APP_REGISTRY,
    ("partners/apps.py", "ready", "bookings.signals"): APP_REGISTRY,
    ("partners/apps.py", "ready", "pricing.signals"): APP_REGISTRY,
}


def _project_apps() -> set[str]:
    return {
        config.name.split(".")[0]
        for config in apps.get_app_configs()
        if (ROOT / config.name.split(".")[0]).is_dir()
    }


def _production_files(app: str):
    for path in sorted((ROOT / app).rglob("*.py")):
        parts = path.relative_to(ROOT).parts
        if "tests" in parts or "migrations" in parts or path.name.startswith("test_"):
            continue
        yield path


def _is_module(dotted: str) -> bool:
    where = ROOT.joinpath(*dotted.split("."))
    return where.with_suffix(".py").is_file() or (where / "__init__.py").is_file()


def _imported_modules(node: ast.Import | ast.ImportFrom, path: Path) -> list[str]:
    """The modules an import statement loads: ``from dispatch import tasks`` is
    ``dispatch.tasks``, ``from dispatch.tasks import offer_timeout`` is ``dispatch.tasks``."""
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    if node.level:
        package = list(path.relative_to(ROOT).with_suffix("").parts)[: -node.level]
        base = ".".join([*package, node.module] if node.module else package)
    else:
        base = node.module or ""
    submodules = [f"{base}.{alias.name}" for alias in node.names]
    return [module for module in submodules if _is_module(module)] or [base]


def _imports_by_function(node: ast.AST, function: str | None = None):
    """(innermost enclosing function, import statement) for every import in ``node``."""
    for child in ast.iter_child_nodes(node):
        if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef):
            yield from _imports_by_function(child, child.name)
        elif isinstance(child, ast.Import | ast.ImportFrom):
            yield function, child
        else:
            yield from _imports_by_function(child, function)


def _function_level_imports(roots: set[str]) -> set[tuple[str, str, str]]:
    found = set()
    for app in sorted(roots):
        for path in _production_files(app):
            tree = ast.parse(path.read_text(), filename=str(path))
            for function, node in _imports_by_function(tree):
                if function is None:
                    continue
                for module in _imported_modules(node, path):
                    if module.split(".")[0] in roots:
                        found.add((path.relative_to(ROOT).as_posix(), function, module))
    return found


def _import_linter() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]


def test_no_project_module_is_imported_inside_a_function_without_a_reason():
    # Given every app's production code (not its tests or migrations), when its imports
    # inside functions are listed
    found = _function_level_imports(_project_apps() | {"config"})

    # then each is one with a stated reason
    unexplained = sorted(found - FUNCTION_LEVEL_IMPORTS.keys())
    assert unexplained == [], (
        "Import these at the module top (import-linter states the arrows between apps), "
        "or add them with their reason to FUNCTION_LEVEL_IMPORTS"
    )


def test_every_listed_function_level_import_still_exists():
    # A listed import that was moved to the module top leaves the list with it.
    found = _function_level_imports(_project_apps() | {"config"})

    assert sorted(FUNCTION_LEVEL_IMPORTS.keys() - found) == []


def test_import_linter_analyses_and_names_every_app():
    # Given the apps Django runs and the import contracts
    linter = _import_linter()
    named = set()
    for contract in linter["contracts"]:
        for key in ("source_modules", "forbidden_modules", "containers", "modules", "layers"):
            named.update(module.split(".")[0] for module in contract.get(key, ()))

    # then import-linter reads every app, and some contract states each app's place
    project = _project_apps() | {"config"}
    assert project <= set(linter["root_packages"])
    assert sorted(project - named) == []
