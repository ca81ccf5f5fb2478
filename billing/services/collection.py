"""Handing invoices to the configured collection backend and recording payments."""

from __future__ import annotations

from datetime import date

from django.db import transaction
from django.db.models import QuerySet

from billing.collection import collection_backend
from billing.models import Invoice, InvoiceStatus


@transaction.atomic
def invoices_collect(*, week_start: date) -> int:
    """Pass the week's ``issued`` invoices to the collection backend; returns how many it
    moved on. Idempotent: invoices already due or paid are not touched again."""
    invoices = Invoice.objects.filter(week_start=week_start, status=InvoiceStatus.ISSUED)
    return collection_backend().collect(invoices=invoices)


@transaction.atomic
def invoices_payment_record(*, invoices: QuerySet[Invoice], reference: str) -> int:
    """Record that the selected invoices have been paid in full (admin action).

    Only ``issued`` or ``due`` invoices change; free, paid and credited ones are skipped,
    so recording twice does nothing the second time.
    """
    return collection_backend().payment_record(invoices=invoices, reference=reference)
