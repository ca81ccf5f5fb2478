"""Request bodies: the base of every input serializer, and the one way views validate.

A field the endpoint does not know is an error, never ignored (contract 1): a misspelt
``vehicleType`` on the snake_case alias would otherwise price a saloon. Every input
serializer derives from :class:`InputSerializer`, which names each unknown field in
``errors`` with ``"Unknown field."`` and, when a known field is close, a second message
naming it (``vehicleType`` sent where ``vehicle_type`` is meant, ``pickup_adress``).
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable, Mapping
from typing import Any, ClassVar

from rest_framework import serializers
from rest_framework.fields import empty

from core import fast_paths
from core.errors import DomainError

UNKNOWN_FIELD = "Unknown field."


def _snake(name: str) -> str:
    return re.sub(r"(?<=[a-z0-9])([A-Z])", r"_\1", name).lower()


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(part[:1].upper() + part[1:] for part in rest)


def known_field_close_to(name: str, known: Iterable[str]) -> str | None:
    """The known field ``name`` most likely meant: the same words in the other case
    convention (``vehicleType`` and ``vehicle_type``), else the closest spelling."""
    known = list(known)
    for spelling in (_snake(name), _camel(name)):
        if spelling != name and spelling in known:
            return spelling
    # Compared without the separators, so a convention mix-up and a typo still meet.
    folded = {_snake(field).replace("_", ""): field for field in known}
    close = difflib.get_close_matches(_snake(name).replace("_", ""), folded, n=1)
    return folded[close[0]] if close else None


def unknown_field_errors(data: Mapping, known: Iterable[str]) -> dict[str, list]:
    """``{field: ["Unknown field.", "Did you mean 'x'?"]}`` for each key of ``data`` not
    in ``known`` (the hint only when a known field is close)."""
    known = list(known)
    errors = {}
    for name in data:
        if name in known:
            continue
        messages = [serializers.ErrorDetail(UNKNOWN_FIELD, code="unknown_field")]
        hint = known_field_close_to(str(name), known)
        if hint is not None:
            messages.append(serializers.ErrorDetail(f"Did you mean '{hint}'?", code="hint"))
        errors[str(name)] = messages
    return errors


# Base of every request body's serializer: unknown fields are errors (contract 1).
# ``field_aliases`` maps another accepted spelling to its field (``{"vehicle_type":
# "vehicleType"}``); the alias is read when the field itself is absent. The unknown
# fields are reported together with the other fields' errors, in one answer. (No
# docstring: drf-spectacular would print it on every request schema that derives.)
class InputSerializer(serializers.Serializer):
    field_aliases: ClassVar[dict[str, str]] = {}

    def run_validation(self, data=empty):
        if not isinstance(data, Mapping):
            return super().run_validation(data)  # DRF's own error for a non-object
        for alias, name in self.field_aliases.items():
            if alias in data and name not in data:
                data = {**data, name: data[alias]}
        unknown = unknown_field_errors(data, [*self.fields, *self.field_aliases])
        try:
            value = super().run_validation(data)
        except serializers.ValidationError as exc:
            if unknown and isinstance(exc.detail, Mapping):
                raise serializers.ValidationError({**exc.detail, **unknown}) from None
            raise
        if unknown:
            raise serializers.ValidationError(unknown)
        return value


def validated_input(serializer_class: type, data) -> dict:
    """The validated body of a request; 400 ``invalid_body`` for a body that is not a JSON
    object, 400 ``invalid_input`` naming the fields otherwise (contract 1, 1.1)."""
    if not isinstance(data, dict):
        raise DomainError("invalid_body", "The body must be a JSON object.")
    try:
        # What serializer_class(data=data).is_valid() does, without a new instance.
        return fast_paths.input_validate(serializer_class, data)
    except serializers.ValidationError as exc:
        raise input_errors(exc.detail) from None


def input_errors(errors: Any, detail: str = "") -> DomainError:
    """``invalid_input`` with DRF's nested errors flattened to {field: [messages]}."""
    return DomainError(
        "invalid_input",
        detail or "The request has invalid fields; see errors.",
        errors=_errors_flatten(errors),
    )


def _errors_flatten(errors: Any) -> dict[str, list[str]]:
    """Flatten DRF's nested error structure into {field: [messages]}."""
    flat: dict[str, list[str]] = {}

    def walk(prefix: str, value: Any) -> None:
        if isinstance(value, dict):
            for key, inner in value.items():
                name = key if not prefix else f"{prefix}.{key}"
                if key == "non_field_errors" and not prefix:
                    name = "non_field_errors"
                walk(name, inner)
        elif isinstance(value, list):
            if all(not isinstance(v, dict | list) for v in value):
                flat.setdefault(prefix or "non_field_errors", []).extend(str(v) for v in value)
            else:
                for index, inner in enumerate(value):
                    walk(f"{prefix}[{index}]" if prefix else f"[{index}]", inner)
        else:
            flat.setdefault(prefix or "non_field_errors", []).append(str(value))

    walk("", errors)
    return flat
