"""Disputes of a week's payment (issue 36): opened, then won or lost, with webhooks in any
order and twice. The payments are real charges at localstripe; localstripe has no
disputes, so the dispute events are Stripe's documented payloads (docs.stripe.com/api/
disputes/object and docs.stripe.com/api/events/types, ``charge.dispute.*``), signed as
Stripe signs webhooks.
"""

from __future__ import annotations

from decimal import Decimal

import pytest
from django.core import mail
from django.urls import reverse

from billing.models import Invoice, InvoiceStatus, ProviderEvent
from billing.services import payments
from billing.services.collection import invoices_payment_record
from billing.services.overview import driver_subscription_overview
from billing.signals import invoice_payment_failed
from billing.tests.test_billing_stripe import (
    billed_week,
    charge_losing_the_commit,
    charges_of,
    deliver,
    driver_with_card,
)

pytestmark = pytest.mark.django_db


def dispute_event(invoice: Invoice, kind: str, status: str, *, event_id: str, **dispute) -> dict:
    """Stripe's ``charge.dispute.*`` event for a dispute of the invoice's charge."""
    withdrawn = {
        "id": "txn_1DisputeWithdrawn",
        "object": "balance_transaction",
        "amount": -2000,
        "currency": "gbp",
        "fee": 2000,
        "net": -4000,
        "reporting_category": "dispute",
        "type": "adjustment",
    }
    reinstated = {**withdrawn, "id": "txn_1DisputeReinstated", "amount": 2000, "net": 2000}
    transactions = [withdrawn] + ([reinstated] if status == "won" else [])
    return {
        "id": event_id,
        "object": "event",
        "api_version": "2025-09-30.clover",
        "created": 1780000000,
        "type": kind,
        "livemode": False,
        "pending_webhooks": 1,
        "request": {"id": None, "idempotency_key": None},
        "data": {
            "object": {
                "id": "dp_1Week",
                "object": "dispute",
                "amount": 2000,
                "balance_transactions": transactions,
                "charge": invoice.payment_reference,
                "created": 1780000000,
                "currency": "gbp",
                "evidence_details": {
                    "due_by": 1781000000,
                    "has_evidence": False,
                    "past_due": False,
                    "submission_count": 0,
                },
                "is_charge_refundable": False,
                "livemode": False,
                "metadata": {},
                "payment_intent": invoice.provider_payment_id,
                "reason": "general",
                "status": status,
                **dispute,
            }
        },
    }


@pytest.fixture
def paid_week(stripe_on):
    driver = driver_with_card(stripe_on)
    invoice = billed_week(driver)
    payments.payments_charge_due()
    invoice.refresh_from_db()
    assert invoice.status == InvoiceStatus.PAID
    return invoice


@pytest.fixture
def told():
    """What billing tells drivers by SMS/WhatsApp (its signal, as dispatch receives it)."""
    texts: list[str] = []

    def receive(sender, text, **kwargs):
        texts.append(text)

    invoice_payment_failed.connect(receive, dispatch_uid="test-disputes-told")
    yield texts
    invoice_payment_failed.disconnect(dispatch_uid="test-disputes-told")


def opened(invoice, event_id="evt_1Opened"):
    return dispute_event(invoice, "charge.dispute.created", "needs_response", event_id=event_id)


def closed(invoice, status, event_id="evt_1Closed"):
    return dispute_event(invoice, "charge.dispute.closed", status, event_id=event_id)


def test_a_dispute_marks_the_week_disputed(client, paid_week):
    assert deliver(client, opened(paid_week)).status_code == 200

    paid_week.refresh_from_db()
    assert paid_week.status == InvoiceStatus.DISPUTED
    assert (paid_week.dispute_id, paid_week.dispute_status) == ("dp_1Week", "needs_response")
    assert paid_week.total == Decimal("20.00")


def test_a_dispute_won_makes_the_week_paid_again_and_tells_nobody(
    client, paid_week, told, admin_client, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        deliver(client, opened(paid_week))
        withdrawn = dispute_event(
            paid_week, "charge.dispute.funds_withdrawn", "needs_response", event_id="evt_1W"
        )
        deliver(client, withdrawn)
        deliver(client, closed(paid_week, "won"))
        reinstated = dispute_event(
            paid_week, "charge.dispute.funds_reinstated", "won", event_id="evt_1Reinstated"
        )
        deliver(client, reinstated)

    paid_week.refresh_from_db()
    assert paid_week.status == InvoiceStatus.PAID
    assert paid_week.dispute_status == "won"
    assert paid_week.failure_message == ""
    assert paid_week.payment_reference.startswith("ch_")
    assert mail.outbox == []
    assert told == []
    queue = admin_client.get(reverse("admin:billing_failedpayment_changelist")).content.decode()
    assert paid_week.display_number not in queue


def test_a_dispute_lost_leaves_the_week_owed_tells_the_driver_once_and_queues_it(
    client, paid_week, told, admin_client, stripe_on, django_capture_on_commit_callbacks
):
    driver = paid_week.driver
    with django_capture_on_commit_callbacks(execute=True):
        deliver(client, opened(paid_week))
        assert deliver(client, closed(paid_week, "lost")).status_code == 200
        # Stripe delivers the same event again.
        assert deliver(client, closed(paid_week, "lost")).status_code == 200

    paid_week.refresh_from_db()
    assert paid_week.status == InvoiceStatus.DISPUTE_LOST
    assert paid_week.next_attempt_at is None
    assert paid_week.total == Decimal("20.00")
    assert [m.subject for m in mail.outbox] == [f"Payment returned: {paid_week.display_number}"]
    assert "returned your payment of £20.00" in mail.outbox[0].body
    assert len(told) == 1
    assert paid_week.display_number in told[0]
    queue = admin_client.get(reverse("admin:billing_failedpayment_changelist")).content.decode()
    assert paid_week.display_number in queue
    outstanding = driver_subscription_overview(driver=driver).outstanding
    assert [week.pk for week in outstanding] == [paid_week.pk]
    # Never charged again by the run: the card's holder has just had it reversed.
    assert payments.payments_charge_due() == 0
    assert len(charges_of(stripe_on, driver)) == 1


def test_a_lost_week_paid_another_way_is_recorded_by_staff(client, paid_week):
    deliver(client, closed(paid_week, "lost"))

    recorded = invoices_payment_record(
        invoices=Invoice.objects.filter(pk=paid_week.pk), reference="bank transfer 0412"
    )

    paid_week.refresh_from_db()
    assert recorded == 1
    assert paid_week.status == InvoiceStatus.PAID
    assert paid_week.payment_reference == "bank transfer 0412"


@pytest.mark.parametrize("outcome", ["won", "lost"])
def test_the_outcome_is_the_same_whatever_the_order(client, paid_week, outcome):
    expected = {"won": InvoiceStatus.PAID, "lost": InvoiceStatus.DISPUTE_LOST}[outcome]
    deliver(client, closed(paid_week, outcome))
    # The news of the dispute opening, and of an update, arrive after its outcome.
    deliver(client, opened(paid_week))
    updated = dispute_event(
        paid_week, "charge.dispute.updated", "under_review", event_id="evt_1Updated"
    )
    deliver(client, updated)

    paid_week.refresh_from_db()
    assert paid_week.status == expected
    assert paid_week.dispute_status == outcome
    assert ProviderEvent.objects.count() == 3


def test_a_dispute_arriving_before_the_payment_is_recorded_settles_the_payment_first(
    client, stripe_on
):
    # Given a charge that succeeded at Stripe while our commit of it failed
    driver = driver_with_card(stripe_on, username="gus")
    invoice = billed_week(driver)
    charge_losing_the_commit(invoice)
    invoice.refresh_from_db()
    assert invoice.status == InvoiceStatus.DUE
    assert not invoice.provider_payment_id
    charge = charges_of(stripe_on, driver)[0]
    invoice.provider_payment_id = charge["payment_intent"]
    invoice.payment_reference = charge["id"]

    # When the dispute's closing is the first news of it
    assert deliver(client, closed(invoice, "lost")).status_code == 200

    # Then the payment is settled from Stripe's record, and the dispute decided on it
    invoice.refresh_from_db()
    assert invoice.provider_payment_id == charge["payment_intent"]
    assert invoice.status == InvoiceStatus.DISPUTE_LOST
    assert len(charges_of(stripe_on, driver)) == 1


def test_a_dispute_of_a_payment_that_is_not_ours_changes_nothing(client, paid_week):
    stranger = dispute_event(
        paid_week, "charge.dispute.closed", "lost", event_id="evt_1Other", payment_intent=None
    )
    stranger["data"]["object"]["charge"] = "ch_1NotOurs"

    assert deliver(client, stranger).status_code == 200

    paid_week.refresh_from_db()
    assert paid_week.status == InvoiceStatus.PAID
