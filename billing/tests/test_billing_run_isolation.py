"""Issue 35, finding 3: one driver's figures cannot stop the week's invoicing for everyone.
A driver whose week cannot be invoiced is recorded for staff and skipped; the others are
invoiced, with gapless numbers."""

from __future__ import annotations

from datetime import date

import pytest
from django.core.exceptions import ValidationError
from django.db import connection
from django.urls import reverse

from billing.models import Invoice, InvoiceRunFailure
from billing.services import invoicing
from billing.services.invoicing import invoices_generate_week
from billing.tests.records import after, at_london, payment
from drivers.tests.factories import BilledDriverFactory

pytestmark = pytest.mark.django_db

WEEK = date(2026, 6, 1)  # Monday
MIDWEEK = at_london(date(2026, 6, 3))


def generate(**kwargs):
    return invoices_generate_week(week_start=WEEK, now=after(WEEK), **kwargs)


@pytest.fixture
def week_with_one_bad_driver():
    """Three billable drivers; the middle one's card fees (two records of 999999.99, as the
    settlement endpoint accepted before the cap) do not fit an invoice line."""
    first, bad, last = BilledDriverFactory(), BilledDriverFactory(), BilledDriverFactory()
    for driver in (first, bad, last):
        payment(driver=driver, amount="600.00", at=MIDWEEK)
    for _ in range(2):
        payment(driver=bad, amount="0.50", at=MIDWEEK, processor_fee="999999.99")
    return first, bad, last


def test_the_rest_of_the_week_is_invoiced_and_the_bad_driver_recorded(
    week_with_one_bad_driver,
):
    first, bad, last = week_with_one_bad_driver

    # when the week is invoiced in one chunk
    result = generate()

    # then the two others are invoiced, numbered without a gap
    numbers = sorted(Invoice.objects.filter(week_start=WEEK).values_list("number", flat=True))
    assert numbers == [1, 2]
    assert set(Invoice.objects.values_list("driver_id", flat=True)) == {first.pk, last.pk}
    # and the bad driver is recorded, once, with why
    assert list(result.failed) == [bad.pk]
    failure = InvoiceRunFailure.objects.get()
    assert (failure.driver_id, failure.week_start) == (bad.pk, WEEK)
    assert "digits" in failure.error


def test_a_retried_run_records_the_failure_once(week_with_one_bad_driver):
    generate()
    generate()
    assert InvoiceRunFailure.objects.count() == 1
    assert Invoice.objects.count() == 2


def test_a_driver_invoiced_by_a_later_run_is_no_longer_outstanding(monkeypatch):
    # given a driver whose week failed once (here: a check that refused it on the first run)
    driver = BilledDriverFactory()
    payment(driver=driver, amount="600.00", at=MIDWEEK)

    def refuse(**_):
        raise ValidationError("refused for the test")

    with monkeypatch.context() as patched:
        patched.setattr(invoicing, "invoice_columns_check", refuse)
        generate()
    assert InvoiceRunFailure.objects.outstanding().get().driver_id == driver.pk

    # when a later run invoices the driver
    generate()

    # then the failure is kept as history but no longer outstanding
    assert Invoice.objects.get(driver=driver, week_start=WEEK).number == 1
    assert InvoiceRunFailure.objects.exists()
    assert not InvoiceRunFailure.objects.outstanding().exists()


@pytest.mark.skipif(connection.vendor != "postgresql", reason="SQLite stores any number")
def test_a_chunk_the_database_refuses_is_written_driver_by_driver(
    week_with_one_bad_driver, monkeypatch
):
    """With the Python check bypassed, the overflow reaches PostgreSQL (``numeric field
    overflow``), as it did in the report: the chunk is then written one driver at a time."""
    first, bad, last = week_with_one_bad_driver
    monkeypatch.setattr(invoicing, "invoice_columns_check", lambda **_: None)

    result = generate()

    assert set(Invoice.objects.values_list("driver_id", flat=True)) == {first.pk, last.pk}
    assert sorted(Invoice.objects.values_list("number", flat=True)) == [1, 2]
    assert "overflow" in result.failed[bad.pk]
    assert InvoiceRunFailure.objects.get().driver_id == bad.pk


def test_staff_see_outstanding_failures_in_the_back_office(admin_client, week_with_one_bad_driver):
    _, bad, _ = week_with_one_bad_driver
    generate()

    page = admin_client.get(reverse("admin:billing_invoicerunfailure_changelist"))

    assert page.status_code == 200
    assert bad.name in page.content.decode()
