"""Charging weekly invoices through the payment provider (Stripe), and what follows.

Invoices handed to ``billing.collection.StripeCollection`` are ``due`` with
``next_attempt_at``; ``payments_charge_due`` (beat every 5 minutes, and right after the
weekly run) charges each one off-session with the driver's saved card or Direct Debit.

Charging once, whatever fails (issue 36):

1. Under the invoice's row lock the attempt number and ``attempted_at`` are committed
   *before* the provider is called, so the idempotency key ``invoice-<id>-attempt-<n>``
   is fixed before any money moves.
2. The PaymentIntent is created and confirmed in one call with that key (Stripe replays
   the first answer for a repeated key instead of charging again).
3. Its outcome is written in a second transaction. If that commit fails (or the process
   dies), the invoice keeps ``attempted_at`` without ``provider_payment_id``: the next
   run, and the reconciliation, first look for the attempt's payment at the provider
   (the customer's charges since the attempt, matched on the PaymentIntent's metadata)
   and settle from it, and only send again when the provider never saw it.

Statuses only move forward along ``due``/``failed`` → ``paid`` → ``refunded`` →
``disputed`` (a retry moves ``failed`` back to ``due``), so webhooks may arrive in any
order and twice; amounts never change (the model refuses it). A dispute's outcome
(``paid`` again when won, ``dispute_lost`` when lost) is ``billing.services.disputes``'s.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import datetime, timedelta

import stripe
from django.conf import settings
from django.db import transaction
from django.utils import timezone

from billing.models import Invoice, InvoiceStatus, PaymentCustomer
from billing.provider import object_id, pence, plain, stripe_client
from billing.services.payment_failures import payment_failed_tell, retry_at, unpaid_pause
from billing.services.payment_methods import payment_method_current

logger = logging.getLogger(__name__)

BACKEND = "stripe"
# How far each status is along the way; webhooks never move an invoice backwards.
_RANK = {
    InvoiceStatus.ISSUED: 0,
    InvoiceStatus.DUE: 0,
    InvoiceStatus.FAILED: 1,
    InvoiceStatus.PAID: 2,
    InvoiceStatus.REFUNDED: 3,
    InvoiceStatus.DISPUTED: 4,
    InvoiceStatus.DISPUTE_LOST: 4,
}
# How many of a driver's most recent charges are searched for a lost attempt (one page).
_LOOKUP_CHARGES = 100


@dataclass
class ChargeOutcome:
    invoice_id: int
    status: str
    provider_payment_id: str = ""
    sent: bool = False  # whether this call sent a charge to the provider


# --- charging ------------------------------------------------------------------------


def payments_due(*, now: datetime | None = None) -> list[int]:
    """Ids of provider-collected invoices whose attempt is due (first attempts and retries
    of failed ones), oldest first."""
    now = now or timezone.now()
    return list(
        Invoice.objects.filter(
            collection_backend=BACKEND,
            status__in=[InvoiceStatus.DUE, InvoiceStatus.FAILED],
            next_attempt_at__lte=now,
        )
        .order_by("next_attempt_at", "pk")
        .values_list("pk", flat=True)
    )


def payments_charge_due(*, now: datetime | None = None) -> int:
    """Charge every invoice whose attempt is due, in this process. Returns how many were
    sent to the provider."""
    now = now or timezone.now()
    return invoices_charge(invoice_ids=payments_due(now=now), now=now)


def invoices_charge(*, invoice_ids: list[int], now: datetime | None = None) -> int:
    """Charge these invoices one by one (each only if still due when its row is locked,
    so a chunk queued twice charges nobody twice). Returns how many were sent."""
    now = now or timezone.now()
    sent = 0
    for invoice_id in invoice_ids:
        try:
            sent += invoice_charge(invoice_id=invoice_id, now=now).sent
        except stripe.StripeError:
            # The provider is down or refused the request itself: the invoice keeps its
            # attempt and the next run (or the reconciliation) settles or resends it.
            logger.exception("billing: charging invoice %s failed", invoice_id)
    return sent


def invoice_charge(*, invoice_id: int, now: datetime | None = None) -> ChargeOutcome:
    """Charge one invoice once (see the module's docstring for how)."""
    now = now or timezone.now()
    with transaction.atomic():
        invoice = Invoice.objects.select_for_update().get(pk=invoice_id)
        if invoice.status not in (InvoiceStatus.DUE, InvoiceStatus.FAILED) or (
            invoice.next_attempt_at is None or invoice.next_attempt_at > now
        ):
            # Settled, or not due: waiting for a retry, or an attempt in flight (its
            # outcome is the reconciliation's to find, never a second charge's).
            return ChargeOutcome(invoice.pk, invoice.status, invoice.provider_payment_id)
        if invoice.attempted_at and not invoice.provider_payment_id:
            # The reconciliation found no outcome for this attempt and made it due again.
            found = _attempt_find(invoice)
            if found is not None:
                return _settle_locked(invoice, found, now=now)
            # The provider never saw the attempt: send it again with the same key.
            invoice.next_attempt_at = None
        else:
            invoice.collection_attempts += 1
            invoice.attempted_at = now
            invoice.provider_payment_id = ""
            invoice.next_attempt_at = None
        method = payment_method_current(driver_id=invoice.driver_id)
        customer = PaymentCustomer.objects.filter(driver_id=invoice.driver_id).first()
        if method is None or customer is None:
            invoice.attempted_at = None
            outcome = _fail_locked(invoice, "No card or Direct Debit on file.", now=now)
            return outcome
        invoice.save(
            update_fields=[
                "collection_attempts",
                "attempted_at",
                "provider_payment_id",
                "next_attempt_at",
            ]
        )
    key = f"invoice-{invoice.pk}-attempt-{invoice.collection_attempts}"
    try:
        intent = plain(
            stripe_client(driver_id=invoice.driver_id).v1.payment_intents.create(
                params={
                    "amount": pence(invoice.total),
                    "currency": invoice.currency.lower(),
                    "customer": customer.customer_id,
                    "payment_method": method.provider_id,
                    "payment_method_types": [method.kind],
                    "off_session": True,
                    "confirm": True,
                    "metadata": {
                        "invoice_id": str(invoice.pk),
                        "invoice_number": invoice.display_number,
                        "attempt": str(invoice.collection_attempts),
                    },
                },
                options={"idempotency_key": key},
            )
        )
    except stripe.CardError as exc:
        intent = plain(getattr(exc.error, "payment_intent", None)) or _attempt_find(invoice)
        if intent is None:
            with transaction.atomic():
                locked = Invoice.objects.select_for_update().get(pk=invoice.pk)
                locked.attempted_at = None  # declined for certain: the retry is a new attempt
                outcome = _fail_locked(locked, exc.user_message or "Payment declined.", now=now)
            outcome.sent = True
            return outcome
    outcome = invoice_settle_from_intent(intent=intent, now=now)
    outcome.sent = True
    return outcome


def invoice_pay_now(*, driver, invoice_id: int) -> ChargeOutcome | None:
    """The driver's "Pay now" on a failed week (after changing the way of paying): the
    next attempt is brought forward to now and sent. None when the invoice is not the
    driver's failed one."""
    now = timezone.now()
    moved = Invoice.objects.filter(
        pk=invoice_id, driver=driver, status=InvoiceStatus.FAILED, collection_backend=BACKEND
    ).update(next_attempt_at=now)
    if not moved:
        return None
    return invoice_charge(invoice_id=invoice_id, now=now)


def _attempt_find(invoice: Invoice):
    """The PaymentIntent of the invoice's current attempt, asked of the provider (its
    customer's most recent charges, newest first, matched on the intent's metadata), or
    None. Not filtered by the provider's ``created`` time: that is the provider's clock,
    not ours, and a driver is charged about once a week, so the latest
    ``_LOOKUP_CHARGES`` reach back far beyond an attempt the reconciliation asks about."""
    customer = PaymentCustomer.objects.filter(driver_id=invoice.driver_id).first()
    if customer is None or invoice.attempted_at is None:
        return None
    client = stripe_client(driver_id=invoice.driver_id)
    charges = client.v1.charges.list(
        params={"customer": customer.customer_id, "limit": _LOOKUP_CHARGES}
    )
    for charge in charges.data:
        intent_id = object_id(plain(charge).get("payment_intent"))
        if not intent_id:
            continue
        intent = plain(client.v1.payment_intents.retrieve(intent_id))
        meta = intent.get("metadata") or {}
        if meta.get("invoice_id") == str(invoice.pk) and meta.get("attempt") == str(
            invoice.collection_attempts
        ):
            return intent
    return None


def invoice_settle_from_intent(*, intent, now: datetime | None = None) -> ChargeOutcome:
    """Move the invoice named in the PaymentIntent's metadata to what the intent says."""
    now = now or timezone.now()
    invoice_id = int((intent.get("metadata") or {}).get("invoice_id") or 0)
    with transaction.atomic():
        invoice = Invoice.objects.select_for_update().filter(pk=invoice_id).first()
        if invoice is None:
            return ChargeOutcome(invoice_id, "unknown", intent["id"])
        return _settle_locked(invoice, intent, now=now)


def _settle_locked(invoice: Invoice, intent, *, now: datetime) -> ChargeOutcome:
    if not _intent_is_for(invoice, intent):
        logger.warning("billing: payment %s does not match invoice %s", intent["id"], invoice.pk)
        return ChargeOutcome(invoice.pk, invoice.status, invoice.provider_payment_id)
    meta = intent.get("metadata") or {}
    current = meta.get("attempt") == str(invoice.collection_attempts)
    status = intent.get("status")
    if status == "succeeded":
        charge_id = object_id(intent.get("latest_charge"))
        return _advance(
            invoice,
            InvoiceStatus.PAID,
            provider_payment_id=intent["id"],
            paid_at=now,
            payment_reference=charge_id or intent["id"],
        )
    if not current:
        # An older attempt's news: the current attempt decides.
        return ChargeOutcome(invoice.pk, invoice.status, invoice.provider_payment_id)
    if status in ("processing", "requires_confirmation", "requires_action"):
        # Bacs Direct Debit takes days: it stays due until payment_intent.succeeded.
        if not invoice.provider_payment_id:
            invoice.provider_payment_id = intent["id"]
            invoice.save(update_fields=["provider_payment_id"])
        return ChargeOutcome(invoice.pk, invoice.status, intent["id"])
    error = intent.get("last_payment_error") or {}
    invoice.provider_payment_id = intent["id"]
    return _fail_locked(invoice, error.get("message") or f"Payment {status}.", now=now)


def _intent_is_for(invoice: Invoice, intent) -> bool:
    """A payment settles an invoice only if it is the driver's and for the invoice's total
    (metadata alone could name an invoice of another environment on the same account)."""
    customer = PaymentCustomer.objects.filter(driver_id=invoice.driver_id).first()
    return (
        customer is not None
        and object_id(intent.get("customer")) == customer.customer_id
        and intent.get("amount") == pence(invoice.total)
        and (intent.get("currency") or "").lower() == invoice.currency.lower()
    )


def _advance(invoice: Invoice, status: str, **fields) -> ChargeOutcome:
    if _RANK.get(invoice.status, 0) >= _RANK[status]:
        return ChargeOutcome(invoice.pk, invoice.status, invoice.provider_payment_id)
    invoice.status = status
    for name, value in fields.items():
        setattr(invoice, name, value)
    invoice.next_attempt_at = None
    invoice.save(update_fields=["status", "next_attempt_at", *fields])
    return ChargeOutcome(invoice.pk, status, invoice.provider_payment_id)


def _fail_locked(invoice: Invoice, message: str, *, now: datetime) -> ChargeOutcome:
    if _RANK.get(invoice.status, 0) > _RANK[InvoiceStatus.FAILED]:
        return ChargeOutcome(invoice.pk, invoice.status, invoice.provider_payment_id)
    # This attempt's failure already recorded (the webhook after our own answer): told once.
    already = Invoice.objects.filter(
        pk=invoice.pk,
        status=InvoiceStatus.FAILED,
        collection_attempts=invoice.collection_attempts,
    ).exists()
    invoice.status = InvoiceStatus.FAILED
    invoice.failure_message = message[:300]
    invoice.next_attempt_at = retry_at(attempts=max(invoice.collection_attempts, 1), after=now)
    invoice.save(
        update_fields=[
            "status",
            "failure_message",
            "next_attempt_at",
            "provider_payment_id",
            "attempted_at",
            "collection_attempts",
        ]
    )
    if not already:
        transaction.on_commit(lambda: payment_failed_tell(invoice_id=invoice.pk))
        unpaid_pause(driver_id=invoice.driver_id)
    return ChargeOutcome(invoice.pk, InvoiceStatus.FAILED, invoice.provider_payment_id)


# --- webhooks and reconciliation ---------------------------------------------------------


def invoice_for_payment_locked(intent_id: str) -> Invoice | None:
    """The invoice the provider's payment settled, its row locked (call in a transaction)."""
    if not intent_id:
        return None
    return Invoice.objects.select_for_update().filter(provider_payment_id=intent_id).first()


def invoice_refunded(*, charge, now: datetime | None = None) -> ChargeOutcome | None:
    """A charge refunded in full (credit notes refund through the provider) ends refunded;
    a partial refund leaves it paid, the credit note showing the difference."""
    with transaction.atomic():
        invoice = invoice_for_payment_locked(object_id(charge.get("payment_intent")))
        if invoice is None:
            return None
        if charge.get("refunded") or charge.get("amount_refunded") == charge.get("amount"):
            return _advance(invoice, InvoiceStatus.REFUNDED)
        return ChargeOutcome(invoice.pk, invoice.status, invoice.provider_payment_id)


def payments_reconcile(*, now: datetime | None = None) -> int:
    """Settle invoices whose outcome is unknown: an attempt sent at least
    BILLING_RECONCILE_AFTER_MINUTES ago that is still ``due`` (a lost webhook, a commit
    that failed after the charge). Asks the provider, never charges. Returns how many
    changed status."""
    now = now or timezone.now()
    before = now - timedelta(minutes=settings.BILLING_RECONCILE_AFTER_MINUTES)
    unknown = Invoice.objects.filter(
        collection_backend=BACKEND, status=InvoiceStatus.DUE, attempted_at__lte=before
    ).values_list("pk", "provider_payment_id", "driver_id")
    changed = 0
    for invoice_id, intent_id, driver_id in list(unknown):
        try:
            if intent_id:
                client = stripe_client(driver_id=driver_id)
                intent = plain(client.v1.payment_intents.retrieve(intent_id))
            else:
                intent = _attempt_find(Invoice.objects.get(pk=invoice_id))
            if intent is None:
                # Never reached the provider: the next charge run sends it again.
                Invoice.objects.filter(pk=invoice_id, status=InvoiceStatus.DUE).update(
                    next_attempt_at=now
                )
                continue
            outcome = invoice_settle_from_intent(intent=intent, now=now)
        except stripe.StripeError:
            logger.exception("billing: reconciling invoice %s failed", invoice_id)
            continue
        changed += outcome.status != InvoiceStatus.DUE
    return changed
