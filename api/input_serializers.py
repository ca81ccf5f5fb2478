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
from typing import ClassVar

from rest_framework import serializers
from rest_framework.fields import empty

from core import fast_paths

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


def input_serializer(serializer_class: type, data) -> serializers.Serializer:
    """``serializer_class(data=data)``: a serializer of one request body."""
    return serializer_class(data=data)


def validated_input(serializer_class: type, data) -> dict:
    """The validated body of a request; 400 ``invalid_body`` for a body that is not a JSON
    object, 400 ``invalid_input`` naming the fields otherwise (contract 1, 1.1)."""
    from api.problems import Problem, validation_problem

    if not isinstance(data, dict):
        raise Problem(400, "invalid_body", "The body must be a JSON object.")
    try:
        # What serializer_class(data=data).is_valid() does, without a new instance.
        return fast_paths.input_validate(serializer_class, data)
    except serializers.ValidationError as exc:
        raise validation_problem(exc.detail) from None
