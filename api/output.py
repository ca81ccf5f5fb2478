"""Rendering a response body with its output serializer, once bound per class.

DRF gives every serializer instance a deep copy of its declared fields, re-running each
field's ``__init__``: for a response body that is most of the cost of rendering it, on
every request. An output serializer keeps nothing of the object it renders on itself
(``to_representation`` reads the instance and the bound fields only), so one instance per
class renders every response: :func:`render` calls its public ``to_representation``.
Output serializers used this way must not read ``self.instance`` or ``self.context``.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from rest_framework import serializers


@cache
def _renderer(serializer_class: type[serializers.Serializer]) -> serializers.Serializer:
    return serializer_class()


def render(serializer_class: type[serializers.Serializer], instance: Any) -> dict:
    """The body ``serializer_class(instance).data`` would give, as a plain dict."""
    return _renderer(serializer_class).to_representation(instance)
