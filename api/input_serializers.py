"""Input serializers built without deep-copying their declared fields on every request.

DRF gives every serializer instance a ``copy.deepcopy`` of the class's declared fields,
which re-runs each field's ``__init__`` (validators, choice maps, error messages): about a
tenth of a millisecond for the quote and booking bodies, on every request. For a flat
input serializer (plain ``Serializer``, scalar fields only) the fields are built once per
class here, unbound, and each instance gets shallow copies bound to it. A field's
per-instance state (name, parent, label, source) is set by ``bind`` on the copy; what
the copies share (validators, choices, error messages) is only read during validation.
Anything else (nested serializers, list or dict fields, a custom ``get_fields``) is built
the ordinary way.
"""

from __future__ import annotations

import copy

from rest_framework import serializers
from rest_framework.utils.serializer_helpers import BindingDict

_CONTAINER_FIELDS = (
    serializers.BaseSerializer,
    serializers.ListField,
    serializers.DictField,
    serializers.HStoreField,
)
# serializer class -> its unbound fields, or None when it must be built the ordinary way.
_prototypes: dict[type, dict[str, serializers.Field] | None] = {}


def _prototype(serializer_class: type) -> dict[str, serializers.Field] | None:
    if serializer_class not in _prototypes:
        flat = serializer_class.get_fields is serializers.Serializer.get_fields and not any(
            isinstance(f, _CONTAINER_FIELDS) for f in serializer_class._declared_fields.values()
        )
        _prototypes[serializer_class] = serializer_class().get_fields() if flat else None
    return _prototypes[serializer_class]


def input_serializer(serializer_class: type, data) -> serializers.Serializer:
    """``serializer_class(data=data)``, with its fields bound from the per-class prototype."""
    serializer = serializer_class(data=data)
    prototype = _prototype(serializer_class)
    if prototype is not None:
        fields = BindingDict(serializer)
        for name, field in prototype.items():
            bound = copy.copy(field)
            if "_validators" in field.__dict__:
                bound._validators = list(field._validators)
            fields[name] = bound
        serializer.__dict__["fields"] = fields  # what the cached ``fields`` property holds
    return serializer


def validated_input(serializer_class: type, data) -> dict:
    """The validated body of a request; 400 ``invalid_body`` for a body that is not a JSON
    object, 400 ``invalid_input`` naming the fields otherwise (contract 1, 1.1)."""
    from api.problems import Problem, validation_problem

    if not isinstance(data, dict):
        raise Problem(400, "invalid_body", "The body must be a JSON object.")
    serializer = input_serializer(serializer_class, data)
    if not serializer.is_valid():
        raise validation_problem(serializer.errors)
    return serializer.validated_data
