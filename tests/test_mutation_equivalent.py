"""tests/mutation_equivalent.py names functions that exist (issue 37: it named one that no
longer did, ``agents.confirmations._passenger_check``, so its entry excused nothing)."""

from __future__ import annotations

import importlib
import re

import pytest

from tests.mutation_equivalent import EQUIVALENT

# "pkg.module.x_name__mutmut_3" or, for a method, "pkg.module.xǁClassǁmethod__mutmut_3"
NAME = re.compile(
    r"^(?P<module>[\w.]+)\.x(?:ǁ(?P<cls>\w+)ǁ(?P<method>\w+)|_(?P<function>\w+))__mutmut_\d+$"
)


@pytest.mark.parametrize("mutant", sorted(EQUIVALENT))
def test_each_equivalent_mutant_names_a_function_that_exists(mutant):
    match = NAME.match(mutant)
    assert match, mutant
    module = importlib.import_module(match["module"])
    if match["cls"]:
        assert hasattr(getattr(module, match["cls"]), match["method"]), mutant
    else:
        assert callable(getattr(module, match["function"], None)), mutant
    assert EQUIVALENT[mutant].strip()
