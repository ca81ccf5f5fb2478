"""Read-side queries for the driver billing pages and the back office."""

from __future__ import annotations

from decimal import Decimal

from django.db.models import DecimalField, OuterRef, Prefetch, QuerySet, Subquery, Sum, Value
from django.db.models.functions import Coalesce

from billing.models import CreditNote, Invoice, InvoiceLine


def invoice_list_for_driver(*, driver) -> QuerySet[Invoice]:
    """Every week of the driver (free weeks included), newest first, with lines and credit
    notes prefetched and the credited total annotated: a constant number of queries."""
    credited = (
        CreditNote.objects.filter(invoice=OuterRef("pk"))
        .order_by()
        .values("invoice")
        .annotate(total=Sum("amount"))
        .values("total")
    )
    return (
        Invoice.objects.filter(driver=driver)
        .annotate(
            credited=Coalesce(
                Subquery(credited, output_field=DecimalField(max_digits=10, decimal_places=2)),
                Value(Decimal("0.00")),
                output_field=DecimalField(max_digits=10, decimal_places=2),
            )
        )
        .prefetch_related(
            Prefetch("lines", queryset=InvoiceLine.objects.order_by("id")),
            Prefetch("credit_notes", queryset=CreditNote.objects.order_by("number")),
        )
        .order_by("-week_start")
    )


def invoice_get_for_driver(*, driver, invoice_id: int) -> Invoice | None:
    return invoice_list_for_driver(driver=driver).filter(pk=invoice_id).first()
