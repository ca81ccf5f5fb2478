"""Payment collection backends: how an issued invoice gets "charged" (seed 8.4).

The service never holds driver card details, so the default backend is manual: it marks
invoices due and an administrator records the payment when it arrives (bank transfer,
the driver's own payment link, ...). A real provider (Direct Debit, card on file) is a
class with the same two methods, named in ``BILLING_COLLECTION_BACKEND``:
``StripeCollection`` charges cards and Bacs Direct Debit through Stripe (issue 36).
"""

from __future__ import annotations

from datetime import timedelta

from django.conf import settings
from django.db.models import QuerySet
from django.utils import timezone
from django.utils.module_loading import import_string

from billing.fees import fee_schedule_current
from billing.models import INVOICE_STATUSES_OWED, Invoice, InvoiceStatus
from core.task_queue import task_enqueue_on_commit


class CollectionBackend:
    """Interface. ``collect`` receives invoices in status ``issued`` and moves them on
    (``due``, or ``paid`` when a provider charges at once); ``payment_record`` is called
    when money for an invoice has been received outside the provider's own callbacks."""

    name = "abstract"

    def collect(self, *, invoices: QuerySet[Invoice]) -> int:
        raise NotImplementedError

    def payment_record(self, *, invoices: QuerySet[Invoice], reference: str) -> int:
        raise NotImplementedError


class ManualCollection(CollectionBackend):
    """Marks invoices due (payable within BILLING_PAYMENT_DUE_DAYS) and lets an
    administrator record payment in the back office."""

    name = "manual"

    def collect(self, *, invoices: QuerySet[Invoice]) -> int:
        now = timezone.now()
        return invoices.filter(status=InvoiceStatus.ISSUED).update(
            status=InvoiceStatus.DUE,
            due_at=now + timedelta(days=fee_schedule_current().collection_due_days),
            collection_backend=self.name,
        )

    def payment_record(self, *, invoices: QuerySet[Invoice], reference: str) -> int:
        return invoices.filter(status__in=[InvoiceStatus.ISSUED, InvoiceStatus.DUE]).update(
            status=InvoiceStatus.PAID, paid_at=timezone.now(), payment_reference=reference[:200]
        )


class StripeCollection(ManualCollection):
    """Charges each issued invoice off-session through Stripe with the driver's saved card
    or Bacs Direct Debit (billing.services.payments): ``collect`` marks them due with an
    attempt due now and queues the charge run after commit. Drivers with no way of paying
    on file get the failed-payment path (told, retried, on the staff queue)."""

    name = "stripe"

    def collect(self, *, invoices: QuerySet[Invoice]) -> int:
        now = timezone.now()
        moved = invoices.filter(status=InvoiceStatus.ISSUED).update(
            status=InvoiceStatus.DUE,
            due_at=now + timedelta(days=fee_schedule_current().collection_due_days),
            collection_backend=self.name,
            next_attempt_at=now,
        )
        if moved:
            task_enqueue_on_commit("billing.tasks.payments_charge_due")
        return moved

    def payment_record(self, *, invoices: QuerySet[Invoice], reference: str) -> int:
        # Paid another way (bank transfer after a failed charge or a lost dispute): no
        # further attempts.
        return invoices.filter(status__in=INVOICE_STATUSES_OWED).update(
            status=InvoiceStatus.PAID,
            paid_at=timezone.now(),
            payment_reference=reference[:200],
            next_attempt_at=None,
        )


def collection_backend() -> CollectionBackend:
    path = settings.BILLING_COLLECTION_BACKEND
    return import_string(path)()
