"""Tests live beside the code they test (issue 26): an app's tests import their helpers
from the apps' own factories and from core.testing, never from the top-level ``tests``
package, which holds only the flows that cross apps and the suite's infrastructure."""

from __future__ import annotations

import re

from core.testing.sources import ROOT, project_packages

IMPORTS_TOP_LEVEL_TESTS = re.compile(r"^\s*(?:from\s+tests(?:\.|\s)|import\s+tests\b)", re.M)


def test_no_app_module_imports_the_top_level_tests_package():
    offenders = [
        path.relative_to(ROOT).as_posix()
        for package in project_packages()
        for path in sorted((ROOT / package).rglob("*.py"))
        if IMPORTS_TOP_LEVEL_TESTS.search(path.read_text())
    ]

    assert offenders == []


def test_the_check_sees_an_import_of_the_top_level_tests_package():
    assert IMPORTS_TOP_LEVEL_TESTS.search("from tests.places import LEEDS")
    assert IMPORTS_TOP_LEVEL_TESTS.search("    import tests.concurrency")
    assert not IMPORTS_TOP_LEVEL_TESTS.search("from drivers.tests.factories import driver_at")
