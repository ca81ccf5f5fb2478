"""Payments recorded against a booking, and the payment state they add up to."""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal

from django.utils import timezone

from bookings.models import (
    Booking,
    PaymentRecord,
)


def payment_record_append(
    *,
    booking: Booking,
    amount: Decimal,
    method: str,
    kind: str = PaymentRecord.Kind.PAYMENT,
    reference: str = "",
    processor_fee: Decimal = Decimal("0.00"),
    driver=None,
    occurred_at: datetime | None = None,
) -> PaymentRecord:
    """Append a settlement event to the booking's immutable payment record (seed 6.3)."""
    return PaymentRecord.objects.create(
        booking=booking,
        kind=kind,
        amount=amount,
        method=method[:20],
        reference=reference[:100],
        processor_fee=processor_fee,
        driver=driver or booking.driver,
        occurred_at=occurred_at or timezone.now(),
    )


def payment_state(records: list[PaymentRecord], fare: Decimal) -> str:
    """unpaid, part_paid, paid or refunded, derived from the records (contract 3.2)."""
    paid = sum((r.amount for r in records if r.kind == PaymentRecord.Kind.PAYMENT), Decimal(0))
    refunded = sum((r.amount for r in records if r.kind == PaymentRecord.Kind.REFUND), Decimal(0))
    if refunded > 0 and refunded >= paid:
        return "refunded"
    net = paid - refunded
    if net <= 0:
        return "unpaid"
    return "paid" if net >= fare else "part_paid"
