"""Error codes are one enumeration that STATUS_BY_CODE covers (contract 1.1, issue 35):
every code a module raises as a literal (DomainError, field_error, LimitReached, Problem,
RateLimited) is in the table, with the status a Problem states for it. A code missing
from the table made problem_from_domain_error fail with KeyError (bookings/services.py
raised ``server_error``)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from api.problems import STATUS_BY_CODE, problem_from_domain_error
from core.errors import DomainError

ROOT = Path(__file__).resolve().parents[2]
SKIPPED = {".venv", "node_modules", "migrations", "tests", "bench", "static"}


def _constant(node) -> str | int | None:
    return node.value if isinstance(node, ast.Constant) else None


def raised_codes() -> list[tuple[str, int | None, str]]:
    """(code, status a Problem gives it or None, where) for every literal code."""
    found = []
    for path in sorted(ROOT.rglob("*.py")):
        if SKIPPED & set(path.relative_to(ROOT).parts):
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if not isinstance(node, ast.Call):
                continue
            func = node.func
            name = func.id if isinstance(func, ast.Name) else getattr(func, "attr", "")
            args = [_constant(arg) for arg in node.args]
            keywords = {kw.arg: _constant(kw.value) for kw in node.keywords}
            where = f"{path.relative_to(ROOT)}:{node.lineno}"
            if name in ("DomainError", "field_error") and args and isinstance(args[0], str):
                found.append((args[0], None, where))
            elif name == "Problem" and len(args) > 1 and isinstance(args[1], str):
                found.append((args[1], args[0], where))
            elif name in ("LimitReached", "RateLimited"):
                code = keywords.get("code") or (args[1] if len(args) > 1 else None)
                if isinstance(code, str):
                    found.append((code, 429, where))
            if name in ("DomainError", "Problem") and isinstance(keywords.get("code"), str):
                found.append((keywords["code"], None, where))
    return found


def test_the_scan_finds_the_codes_it_should():
    codes = {code for code, _, _ in raised_codes()}
    assert {"settlement_exceeds_fare", "invalid_input", "server_error", "unauthenticated"} <= codes


@pytest.mark.parametrize(("code", "status", "where"), raised_codes(), ids=lambda v: str(v))
def test_every_raised_code_has_its_status(code, status, where):
    assert code in STATUS_BY_CODE, f"{where}: {code!r} is not in api.problems.STATUS_BY_CODE"
    if status is not None:
        assert STATUS_BY_CODE[code] == status, f"{where}: {code!r} as {status}"


def test_a_reference_that_cannot_be_allocated_is_a_500_problem_not_a_key_error():
    problem = problem_from_domain_error(
        DomainError("server_error", "Could not allocate a booking reference; retry.")
    )
    assert problem.status == 500
    assert problem.as_body()["code"] == "server_error"
