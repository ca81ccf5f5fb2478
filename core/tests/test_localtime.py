"""One local time zone (settings.LOCAL_TIME_ZONE) and one formatter."""

from __future__ import annotations

import datetime as dt

import pytest
from django.template import Context, Template

from core.localtime import local_day_bounds, local_time_format, local_today, local_zone

SUMMER = dt.datetime(2030, 6, 5, 21, 30, tzinfo=dt.UTC)  # 22:30 BST, a Wednesday
WINTER = dt.datetime(2030, 1, 9, 21, 30, tzinfo=dt.UTC)  # 21:30 GMT


def test_the_zone_is_the_setting(settings):
    assert local_zone().key == "Europe/London"
    settings.LOCAL_TIME_ZONE = "Europe/Paris"
    assert local_zone().key == "Europe/Paris"


@pytest.mark.parametrize(
    ("style", "summer", "winter"),
    [
        ("datetime", "Wed 5 June 2030, 22:30", "Wed 9 January 2030, 21:30"),
        ("short", "Wed 5 Jun 22:30", "Wed 9 Jan 21:30"),
        ("date", "5 June 2030", "9 January 2030"),
        ("time", "22:30", "21:30"),
    ],
)
def test_moments_are_shown_in_uk_local_time(style, summer, winter):
    assert local_time_format(SUMMER, style) == summer
    assert local_time_format(WINTER, style) == winter


def test_the_template_filter_is_the_formatter():
    template = Template('{{ at|local_time }} / {{ at|local_time:"time" }}')
    assert template.render(Context({"at": SUMMER})) == "Wed 5 June 2030, 22:30 / 22:30"


def test_local_day_is_the_uk_day():
    # 23:30 UTC on 5 June is already 6 June in London
    late = dt.datetime(2030, 6, 5, 23, 30, tzinfo=dt.UTC)
    assert local_today(late) == dt.date(2030, 6, 6)
    start, end = local_day_bounds(dt.date(2030, 3, 31))  # clocks go forward: 23 hours
    assert start == dt.datetime(2030, 3, 31, 0, 0, tzinfo=dt.UTC)
    assert end.astimezone(dt.UTC) - start.astimezone(dt.UTC) == dt.timedelta(hours=23)
