"""Input serializers validated without building their fields on every request.

DRF gives every serializer instance a ``copy.deepcopy`` of the class's declared fields,
which re-runs each field's ``__init__`` (validators, choice maps, error messages), and
then binds them: a tenth of a millisecond or more for the quote and booking bodies, on
every request. A flat input serializer (plain ``Serializer``, scalar fields only) keeps
nothing of a request on its fields: validation reads the field's settings and returns or
raises, and what binding sets (name, source, label, parent) is the same for every
instance. So for such a class one instance, the prototype, is built per process:
:func:`validated_input` validates with it directly, and :func:`input_serializer` gives a
new instance (for its ``validated_data`` and ``errors``) the prototype's bound fields.
Anything else (nested serializers, list or dict fields, a custom ``get_fields``) is built
the ordinary way. None of the project's fields reads its parent or context.
"""

from __future__ import annotations

from rest_framework import serializers

_CONTAINER_FIELDS = (
    serializers.BaseSerializer,
    serializers.ListField,
    serializers.DictField,
    serializers.HStoreField,
)
# serializer class -> its prototype instance, or None when it must be built the ordinary way.
_prototypes: dict[type, serializers.Serializer | None] = {}


def _prototype(serializer_class: type) -> serializers.Serializer | None:
    if serializer_class not in _prototypes:
        flat = serializer_class.get_fields is serializers.Serializer.get_fields and not any(
            isinstance(f, _CONTAINER_FIELDS) for f in serializer_class._declared_fields.values()
        )
        prototype = None
        if flat:
            prototype = serializer_class()
            prototype.fields  # noqa: B018 - bind them now, once
        _prototypes[serializer_class] = prototype
    return _prototypes[serializer_class]


def input_serializer(serializer_class: type, data) -> serializers.Serializer:
    """``serializer_class(data=data)``, with the prototype's bound fields when it has one."""
    serializer = serializer_class(data=data)
    prototype = _prototype(serializer_class)
    if prototype is not None:
        serializer.__dict__["fields"] = prototype.fields  # what the cached property holds
    return serializer


def validated_input(serializer_class: type, data) -> dict:
    """The validated body of a request; 400 ``invalid_body`` for a body that is not a JSON
    object, 400 ``invalid_input`` naming the fields otherwise (contract 1, 1.1)."""
    from api.problems import Problem, validation_problem

    if not isinstance(data, dict):
        raise Problem(400, "invalid_body", "The body must be a JSON object.")
    prototype = _prototype(serializer_class)
    if prototype is None:
        serializer = serializer_class(data=data)
        if not serializer.is_valid():
            raise validation_problem(serializer.errors)
        return serializer.validated_data
    # What is_valid() does, without an instance per request.
    try:
        return prototype.run_validation(data)
    except serializers.ValidationError as exc:
        raise validation_problem(exc.detail) from None
