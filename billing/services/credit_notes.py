"""Credit notes: the only way to correct an issued invoice (invoices are immutable)."""

from __future__ import annotations

from decimal import Decimal

from django.db import transaction
from django.db.models import Sum

from billing import numbering
from billing.models import INVOICE_STATUSES_OWED, CreditNote, Invoice, InvoiceStatus
from billing.provider import pence, plain, stripe_client
from core.task_queue import task_enqueue_on_commit


class CreditNoteRefused(ValueError):
    """The credit note would not be valid; the message says why, for the back office."""


@transaction.atomic
def credit_note_issue(*, invoice: Invoice, amount: Decimal, reason: str, actor=None) -> CreditNote:
    """Credit ``amount`` against an issued invoice and give it the next gapless number.

    Guarantees: the credited total never exceeds the invoice total, even when two
    administrators credit the same invoice at once (the invoice row is locked first, then
    the credit note counter, always in that order); an invoice credited in full and not
    paid becomes ``credited`` (nothing left to collect).
    """
    amount = Decimal(amount)
    if amount <= 0:
        raise CreditNoteRefused("A credit note must be for a positive amount.")
    if not reason.strip():
        raise CreditNoteRefused("A credit note needs a reason.")
    locked = Invoice.objects.select_for_update().get(pk=invoice.pk)
    if locked.number is None:
        raise CreditNoteRefused("A free week has nothing to credit.")
    credited = locked.credit_notes.aggregate(total=Sum("amount"))["total"] or Decimal(0)
    remaining = locked.total - credited
    if amount > remaining:
        raise CreditNoteRefused(f"Only £{remaining} of {locked.display_number} is left to credit.")
    sequence = numbering.sequence_lock(name=numbering.CREDIT_NOTE)
    note = CreditNote.objects.create(
        number=numbering.sequence_take(sequence=sequence, count=1),
        invoice=locked,
        amount=amount,
        reason=reason[:500],
        created_by=actor,
    )
    if amount == remaining and locked.status in INVOICE_STATUSES_OWED:
        Invoice.objects.filter(pk=locked.pk).update(
            status=InvoiceStatus.CREDITED, next_attempt_at=None
        )
    elif locked.status == InvoiceStatus.PAID and locked.provider_payment_id:
        # Paid through the provider: the credit goes back the same way (issue 36).
        task_enqueue_on_commit("billing.tasks.credit_note_refund", note_id=note.pk)
    return note


def credit_note_refund(*, note_id: int) -> str:
    """Refund a credit note's amount on the invoice's provider payment; the idempotency
    key is the credit note's number, so a retried task refunds once. Returns the refund id.
    """
    note = CreditNote.objects.select_related("invoice").get(pk=note_id)
    refund = plain(
        stripe_client(driver_id=note.invoice.driver_id).v1.refunds.create(
            params={
                "payment_intent": note.invoice.provider_payment_id,
                "amount": pence(note.amount),
                "metadata": {"credit_note": note.display_number},
            },
            options={"idempotency_key": f"credit-note-{note.number}"},
        )
    )
    return refund["id"]
