"""The ``local_time`` filter (a builtin, see TEMPLATES in config/settings/base.py):
``{{ booking.pickup_time|local_time }}`` or ``|local_time:"short"``."""

from django import template

from core.localtime import local_time_format

register = template.Library()


@register.filter(name="local_time")
def local_time(moment, style: str = "datetime") -> str:
    return local_time_format(moment, style)
