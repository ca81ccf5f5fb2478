"""Bodies checked against TOMP-API 1.6.1's own schemas (the specification we ship)."""

from __future__ import annotations

import copy
from pathlib import Path

import yaml
from jsonschema import Draft4Validator

SPEC = Path(__file__).resolve().parent.parent / "spec" / "TOMP-API-1.6.1.yaml"


def tomp_components() -> dict:
    """TOMP 1.6.1's components, with one correction: its ``coordinates`` give ``lng`` a
    minimum of 0, which no place west of Greenwich (most of the UK) meets; we send the
    true longitude."""
    spec = yaml.safe_load(SPEC.read_text())
    components = copy.deepcopy(spec["components"])
    del components["schemas"]["coordinates"]["properties"]["lng"]["minimum"]
    return components


COMPONENTS = tomp_components()


def assert_tomp(instance, component: str) -> None:
    """The body is a valid TOMP ``component`` (OpenAPI 3.0 schemas, Draft 4)."""
    schema = {"components": COMPONENTS, "$ref": f"#/components/schemas/{component}"}
    errors = [
        f"{list(e.absolute_path)}: {e.message}"
        for e in Draft4Validator(schema).iter_errors(instance)
    ]
    assert errors == []
