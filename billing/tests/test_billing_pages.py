"""Driver billing pages (server-rendered) and the billing back office."""

from __future__ import annotations

import csv
import io
from datetime import date, timedelta
from decimal import Decimal

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse
from django.utils import timezone

from billing.models import Invoice, InvoiceStatus, Subscription, SubscriptionAudit
from billing.services.collection import invoices_collect, invoices_payment_record
from billing.services.credit_notes import credit_note_issue
from billing.services.invoicing import invoices_generate_week
from billing.tests.records import after, at_london, payment
from core.localtime import local_datetime
from drivers.tests.factories import BilledDriverFactory
from partners.tests.factories import AccountFactory

pytestmark = pytest.mark.django_db

PAID_WEEK = date(2026, 6, 1)
FREE_WEEK = date(2026, 6, 8)
DUE_WEEK = date(2026, 6, 15)


@pytest.fixture
def driver_user():
    user = get_user_model().objects.create_user("asha", password="pw-123456!")
    driver = BilledDriverFactory(user=user, name="Asha Khan")
    # Paid week: 640 earned by card with 3.10 of processor fees
    payment(
        driver=driver,
        amount="640.00",
        at=at_london(PAID_WEEK + timedelta(days=1)),
        method="card",
        processor_fee="3.10",
    )
    # Free week: 500.00 exactly
    payment(driver=driver, amount="500.00", at=at_london(FREE_WEEK + timedelta(days=1)))
    # Due week: 720 earned
    payment(driver=driver, amount="720.00", at=at_london(DUE_WEEK + timedelta(days=1)))
    for week in (PAID_WEEK, FREE_WEEK, DUE_WEEK):
        invoices_generate_week(week_start=week, now=after(week))
        invoices_collect(week_start=week)
    invoices_payment_record(
        invoices=Invoice.objects.filter(week_start=PAID_WEEK), reference="BACS 1"
    )
    return user


def test_subscription_page_shows_stage_trial_end_weeks_and_paid_weeks(client, driver_user):
    # Given a logged-in driver with a paid, a free and a due week
    client.force_login(driver_user)
    subscription = Subscription.objects.get(driver__user=driver_user)

    # When they open their billing page
    response = client.get(reverse("billing:subscription"))

    # Then it shows the stage, the trial end, each week's earnings and free/billed state
    assert response.status_code == 200
    html = response.content.decode()
    assert "Asha Khan" in html
    assert 'id="stage"><span class="tag billed">Billed' in html
    assert subscription.trial_ends_at.strftime("%Y") in html
    assert 'id="paid-weeks">1<' in html
    assert "£640.00" in html
    assert "£500.00" in html
    assert "£720.00" in html
    assert html.count("Billed £20.00") == 2
    assert "Free (earnings not over £500.00)" in html
    paid, due = (Invoice.objects.get(week_start=w) for w in (PAID_WEEK, DUE_WEEK))
    assert paid.display_number in html
    assert due.display_number in html
    assert "Paid" in html
    assert "Due" in html
    # the outstanding list names only the unpaid invoice
    outstanding = html.split('id="outstanding">', 1)[1].split("</dd>", 1)[0]
    assert due.display_number in outstanding
    assert paid.display_number not in outstanding


def test_subscription_page_query_count_does_not_grow_with_weeks(
    client, driver_user, django_assert_max_num_queries
):
    client.force_login(driver_user)
    with django_assert_max_num_queries(10):
        client.get(reverse("billing:subscription"))


def test_invoice_page_lists_lines_and_credit_notes(client, driver_user):
    client.force_login(driver_user)
    invoice = Invoice.objects.get(week_start=PAID_WEEK)
    credit_note_issue(invoice=invoice, amount=Decimal("3.10"), reason="Processor refund")

    response = client.get(reverse("billing:invoice", args=[invoice.pk]))

    html = response.content.decode()
    assert response.status_code == 200
    assert "Weekly software subscription" in html
    assert "Card processing fees" in html
    assert "£3.10" in html
    assert 'id="total">£23.10' in html
    assert "CN-0000001" in html
    assert "Processor refund" in html


def test_free_week_page_explains_why_it_was_free(client, driver_user):
    client.force_login(driver_user)
    free = Invoice.objects.get(week_start=FREE_WEEK)

    html = client.get(reverse("billing:invoice", args=[free.pk])).content.decode()

    assert "free: earnings not over the threshold" in html
    assert 'id="total">£0.00' in html


def test_pages_need_a_login(client):
    response = client.get(reverse("billing:subscription"))
    assert response.status_code == 302
    assert "login" in response["Location"]


def test_a_user_who_is_not_a_driver_is_refused(client):
    user = get_user_model().objects.create_user("office", password="pw-123456!")
    client.force_login(user)
    assert client.get(reverse("billing:subscription")).status_code == 403


def test_a_driver_cannot_see_another_drivers_invoice(client, driver_user):
    other = get_user_model().objects.create_user("ben", password="pw-123456!")
    BilledDriverFactory(user=other)
    client.force_login(other)
    invoice = Invoice.objects.get(week_start=PAID_WEEK)

    assert client.get(reverse("billing:invoice", args=[invoice.pk])).status_code == 404


def test_new_driver_page_shows_the_trial_and_no_weeks(client, settings):
    # Given a driver approved yesterday at noon (UK) and a 90-day trial
    settings.DRIVER_TRIAL_DAYS = 90
    approved_on = local_datetime(timezone.now()).date() - timedelta(days=1)
    user = get_user_model().objects.create_user("new", password="pw-123456!")
    driver = BilledDriverFactory(user=user, approved_at=at_london(approved_on), stage="trial")
    client.force_login(user)

    html = client.get(reverse("billing:subscription")).content.decode()

    # Then the trial ends 90 days after that day (noon: a clock change moves it an hour)
    ends_on = approved_on + timedelta(days=90)
    assert "Free trial ends" in html
    assert f"{ends_on.day} {ends_on:%B %Y}" in html
    assert 'id="no-weeks"' in html
    assert Subscription.objects.get(driver=driver).stage == "trial"


# --- back office ------------------------------------------------------------------------


def test_admin_invoice_list_filters_and_searches(admin_client, driver_user):
    url = reverse("admin:billing_invoice_changelist")

    assert admin_client.get(url).status_code == 200
    response = admin_client.get(url, {"status__exact": "paid", "q": "Asha"})
    assert response.status_code == 200
    assert list(response.context["cl"].queryset) == list(
        Invoice.objects.filter(status=InvoiceStatus.PAID)
    )
    invoice = Invoice.objects.get(week_start=PAID_WEEK)
    detail = admin_client.get(reverse("admin:billing_invoice_change", args=[invoice.pk]))
    assert detail.status_code == 200
    assert "Weekly software subscription" in detail.content.decode()


def test_admin_csv_export(admin_client, driver_user):
    ids = list(Invoice.objects.values_list("pk", flat=True))

    response = admin_client.post(
        reverse("admin:billing_invoice_changelist"),
        {"action": "export_csv", "_selected_action": ids},
    )

    assert response["Content-Type"].startswith("text/csv")
    rows = list(csv.DictReader(io.StringIO(b"".join(response.streaming_content).decode())))
    assert len(rows) == 3
    by_week = {row["week_start"]: row for row in rows}
    assert by_week[str(PAID_WEEK)]["status"] == "paid"
    assert by_week[str(PAID_WEEK)]["total"] == "23.10"
    assert by_week[str(FREE_WEEK)]["number"] == ""
    assert by_week[str(FREE_WEEK)]["fee_decision"] == "under_threshold"


def test_admin_record_payment_action(admin_client, driver_user):
    due = Invoice.objects.get(week_start=DUE_WEEK)

    admin_client.post(
        reverse("admin:billing_invoice_changelist"),
        {"action": "record_payment", "_selected_action": [due.pk]},
    )

    due.refresh_from_db()
    assert due.status == InvoiceStatus.PAID


def test_admin_trial_extension_action_with_audit(admin_client, admin_user):
    account = AccountFactory()
    subscription = Subscription.objects.get(account=account)
    url = reverse("admin:billing_subscription_changelist")

    # The action first asks for the days and a reason...
    form = admin_client.post(url, {"action": "extend_trial", "_selected_action": [subscription.pk]})
    assert form.status_code == 200
    assert "Extend free trial" in form.content.decode()

    # ...then applies them
    admin_client.post(
        url,
        {
            "action": "extend_trial",
            "_selected_action": [subscription.pk],
            "apply": "1",
            "days": "21",
            "reason": "Pilot extended",
        },
    )

    extended = Subscription.objects.get(pk=subscription.pk)
    assert extended.trial_ends_at == subscription.trial_ends_at + timedelta(days=21)
    audit = SubscriptionAudit.objects.get(subscription=subscription)
    assert (audit.actor, audit.reason) == (admin_user, "Pilot extended")


def test_admin_credit_note_creation(admin_client, driver_user):
    invoice = Invoice.objects.get(week_start=DUE_WEEK)

    admin_client.post(
        reverse("admin:billing_creditnote_add"),
        {"invoice": invoice.pk, "amount": "20.00", "reason": "Wrongly billed"},
    )
    over = admin_client.post(
        reverse("admin:billing_creditnote_add"),
        {"invoice": invoice.pk, "amount": "0.01", "reason": "Again"},
    )

    note = invoice.credit_notes.get()
    assert (note.number, note.amount) == (1, Decimal("20.00"))
    assert "left to credit" in over.content.decode()
    invoice.refresh_from_db()
    assert invoice.status == InvoiceStatus.CREDITED
