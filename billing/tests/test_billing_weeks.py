"""Billing weeks are Monday 00:00 to Sunday 24:00 in Europe/London, across clock changes."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from decimal import Decimal

import pytest

from billing.models import Invoice
from billing.services.invoicing import invoices_generate_week
from billing.tests.records import after, payment
from billing.weeks import week_bounds, week_start_of, week_start_previous
from drivers.tests.factories import BilledDriverFactory

SPRING = date(2026, 3, 23)  # clocks go forward on Sunday 29 March 2026 at 01:00 UTC
AUTUMN = date(2026, 10, 19)  # clocks go back on Sunday 25 October 2026 at 01:00 UTC


def utc(*args) -> datetime:
    return datetime(*args, tzinfo=UTC)


def test_spring_week_is_167_hours_and_ends_at_2300_utc():
    start, end = week_bounds(SPRING)
    assert start == utc(2026, 3, 23, 0, 0)  # midnight GMT
    assert end == utc(2026, 3, 29, 23, 0)  # midnight BST on Monday 30 March
    assert end - start == timedelta(hours=167)


def test_autumn_week_is_169_hours_and_starts_at_2300_utc():
    start, end = week_bounds(AUTUMN)
    assert start == utc(2026, 10, 18, 23, 0)  # midnight BST
    assert end == utc(2026, 10, 26, 0, 0)  # midnight GMT
    assert end - start == timedelta(hours=169)


def test_any_day_selects_its_monday_and_mondays_only_have_bounds():
    assert week_start_of(date(2026, 3, 29)) == SPRING  # a Sunday
    assert week_start_of(SPRING) == SPRING
    with pytest.raises(ValueError, match="not a Monday"):
        week_bounds(date(2026, 3, 24))


def test_previous_week_is_judged_in_london_time():
    # 23:30 UTC on Sunday 29 March is already 00:30 BST on Monday 30 March
    assert week_start_previous(utc(2026, 3, 29, 23, 30)) == SPRING
    # ...while 22:30 UTC is still Sunday in London: the week before is the last complete one
    assert week_start_previous(utc(2026, 3, 29, 22, 30)) == SPRING - timedelta(days=7)


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("week", "inside", "outside"),
    [
        (
            SPRING,
            # 00:00 GMT Monday, and 23:59:59 BST on the Sunday after the change
            [utc(2026, 3, 23, 0, 0), utc(2026, 3, 29, 22, 59, 59)],
            # 23:59:59 GMT the Sunday before, and 00:00 BST Monday 30 March
            [utc(2026, 3, 22, 23, 59, 59), utc(2026, 3, 29, 23, 0)],
        ),
        (
            AUTUMN,
            # 00:00 BST Monday 19 October, and 23:59:59 GMT Sunday 25 October
            [utc(2026, 10, 18, 23, 0), utc(2026, 10, 25, 23, 59, 59)],
            # 23:59:59 BST the Sunday before, and 00:00 GMT Monday 26 October
            [utc(2026, 10, 18, 22, 59, 59), utc(2026, 10, 26, 0, 0)],
        ),
    ],
    ids=["spring-forward", "autumn-back"],
)
def test_payments_just_either_side_of_local_midnight(week, inside, outside):
    # Given 260 GBP just inside each end of the week and 1,000 GBP just outside each end
    driver = BilledDriverFactory()
    for moment in inside:
        payment(driver=driver, amount="260.00", at=moment)
    for moment in outside:
        payment(driver=driver, amount="1000.00", at=moment)

    # When the week is invoiced
    invoices_generate_week(week_start=week, now=after(week))

    # Then exactly the two inside payments count (520 GBP: billed), none outside
    invoice = Invoice.objects.get(driver=driver, week_start=week)
    assert invoice.earnings == Decimal("520.00")
    assert invoice.total == Decimal("20.00")
    assert (invoice.period_start, invoice.period_end) == week_bounds(week)
