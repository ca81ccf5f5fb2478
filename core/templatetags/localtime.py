"""The ``local_time`` filter (a builtin, see TEMPLATES in config/settings/base.py):
``{{ booking.pickup_time|local_time }}`` or ``|local_time:"short"``."""

from django import template

from core.localtime import local_time_format, local_zone_abbreviation

register = template.Library()


@register.filter(name="local_time")
def local_time(moment, style: str = "datetime") -> str:
    return local_time_format(moment, style)


@register.filter(name="uk_time")
def uk_time(moment, style: str = "datetime") -> str:
    """The moment in UK local time, labelled with the clock in force then:
    "Sat 21 November 2026, 14:30 UK time (GMT)"."""
    if moment is None:
        return ""
    return f"{local_time_format(moment, style)} UK time ({local_zone_abbreviation(moment)})"
