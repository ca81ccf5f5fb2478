"""Disputes of a week's payment (issue 36): the driver's bank opens one, then it closes,
won or lost.

Stripe sends ``charge.dispute.created``, ``.updated``, ``.funds_withdrawn``, ``.closed``
and ``.funds_reinstated``, each with the dispute as it was then, in any order and perhaps
twice. What moves the invoice is the dispute's ``status``, never the event's type:

- open (``warning_needs_response``, ``warning_under_review``, ``needs_response``,
  ``under_review``): ``disputed``;
- won, and an inquiry closed without a chargeback (``warning_closed``) or one prevented
  (``prevented``): ``paid`` again, the money stays with the network or is reinstated;
- ``lost``: ``dispute_lost``, the money went back to the driver. The week is owed again
  but not charged again automatically (taking money again from a card whose holder's bank
  has just reversed the payment invites a second dispute); the driver is told once, the
  week is on the staff queue of failed payments and counts towards pausing offers, and
  staff record a payment received another way or issue a credit note;
- ``charge_refunded`` (Stripe's older closed status for a refunded charge): ``refunded``.

A charge has at most one dispute and a closed dispute never reopens, so the first closed
status recorded (``Invoice.dispute_status``) is final and later open news changes
nothing: the outcome is the same in any order. A dispute whose payment is not yet
recorded here (its webhook came first, or was lost) settles that payment from the
provider's record first.
"""

from __future__ import annotations

from datetime import datetime

import stripe
from django.db import transaction
from django.utils import timezone

from billing.models import Invoice, InvoiceStatus
from billing.provider import object_id, plain, stripe_client
from billing.services.payment_failures import payment_failed_tell, unpaid_pause
from billing.services.payments import (
    ChargeOutcome,
    invoice_for_payment_locked,
    invoice_settle_from_intent,
)

DISPUTE_OPEN = frozenset(
    {"warning_needs_response", "warning_under_review", "needs_response", "under_review"}
)
# Closed dispute status -> where the invoice ends.
DISPUTE_OUTCOMES = {
    "won": InvoiceStatus.PAID,
    "warning_closed": InvoiceStatus.PAID,
    "prevented": InvoiceStatus.PAID,
    "lost": InvoiceStatus.DISPUTE_LOST,
    "charge_refunded": InvoiceStatus.REFUNDED,
}
DISPUTE_LOST_MESSAGE = "Your bank returned this payment to you after a dispute."


def invoice_dispute_update(*, dispute, now: datetime | None = None) -> ChargeOutcome | None:
    """Move the invoice whose payment ``dispute`` disputes to what the dispute's status
    says (see the module's docstring). None when the payment is not one of our invoices'.
    """
    now = now or timezone.now()
    intent_id = _disputed_intent_id(dispute)
    if not intent_id:
        return None
    if not Invoice.objects.filter(provider_payment_id=intent_id).exists():
        # The dispute's news came before the payment's: settle the payment first.
        try:
            intent = plain(stripe_client().v1.payment_intents.retrieve(intent_id))
        except stripe.InvalidRequestError:
            return None  # not a payment this account knows (another environment's)
        if not (intent.get("metadata") or {}).get("invoice_id"):
            return None
        invoice_settle_from_intent(intent=intent, now=now)
    with transaction.atomic():
        invoice = invoice_for_payment_locked(intent_id)
        if invoice is None:
            return None
        return _dispute_apply(invoice, dispute)


def _disputed_intent_id(dispute) -> str:
    """The disputed PaymentIntent: named by the dispute, or by its charge (disputes of
    charges made before PaymentIntents name none)."""
    intent_id = object_id(dispute.get("payment_intent"))
    charge_id = object_id(dispute.get("charge"))
    if intent_id or not charge_id:
        return intent_id
    try:
        charge = plain(stripe_client().v1.charges.retrieve(charge_id))
    except stripe.InvalidRequestError:
        return ""
    return object_id(charge.get("payment_intent"))


def _dispute_apply(invoice: Invoice, dispute) -> ChargeOutcome:
    unchanged = ChargeOutcome(invoice.pk, invoice.status, invoice.provider_payment_id)
    if invoice.dispute_status in DISPUTE_OUTCOMES:
        return unchanged  # closed: its outcome is final
    status = dispute.get("status") or ""
    if status in DISPUTE_OUTCOMES:
        invoice.status = DISPUTE_OUTCOMES[status]
        invoice.failure_message = (
            DISPUTE_LOST_MESSAGE if invoice.status == InvoiceStatus.DISPUTE_LOST else ""
        )
    elif status in DISPUTE_OPEN:
        if invoice.status == InvoiceStatus.DISPUTED and invoice.dispute_status == status:
            return unchanged
        invoice.status = InvoiceStatus.DISPUTED
        invoice.failure_message = "Disputed by the driver."
    else:
        return unchanged  # a status Stripe may add later: left for staff to read
    invoice.dispute_id = dispute.get("id", "")[:100]
    invoice.dispute_status = status
    invoice.next_attempt_at = None
    invoice.save(
        update_fields=[
            "status",
            "failure_message",
            "dispute_id",
            "dispute_status",
            "next_attempt_at",
        ]
    )
    if invoice.status == InvoiceStatus.DISPUTE_LOST:
        transaction.on_commit(lambda: payment_failed_tell(invoice_id=invoice.pk))
        unpaid_pause(driver_id=invoice.driver_id)
    return ChargeOutcome(invoice.pk, invoice.status, invoice.provider_payment_id)
