"""The payment record is append-only (seed 2.8, 6.3)."""

from decimal import Decimal

import pytest
from django.db import DatabaseError, connection, transaction

from bookings.models import ImmutableRecordError, PaymentRecord
from bookings.services import payment_record_append, payment_state

pytestmark = pytest.mark.django_db


def test_update_through_the_model_is_refused(booking_factory):
    record = payment_record_append(
        booking=booking_factory(), amount=Decimal("10.00"), method="cash"
    )
    record.amount = Decimal("1.00")
    with pytest.raises(ImmutableRecordError):
        record.save()
    with pytest.raises(ImmutableRecordError):
        PaymentRecord.objects.filter(pk=record.pk).update(amount=Decimal("1.00"))
    assert PaymentRecord.objects.get(pk=record.pk).amount == Decimal("10.00")


def test_delete_is_refused(booking_factory):
    record = payment_record_append(
        booking=booking_factory(), amount=Decimal("10.00"), method="cash"
    )
    with pytest.raises(ImmutableRecordError):
        record.delete()
    with pytest.raises(ImmutableRecordError):
        PaymentRecord.objects.all().delete()
    assert PaymentRecord.objects.count() == 1


def test_database_trigger_refuses_raw_update_and_delete(booking_factory):
    """Issue 13: "On SQLite, payment records can be updated and deleted (the trigger is
    PostgreSQL-only)". Both databases refuse raw UPDATE and DELETE."""
    record = payment_record_append(
        booking=booking_factory(), amount=Decimal("10.00"), method="cash"
    )
    for statement in (
        "UPDATE bookings_paymentrecord SET amount = 0 WHERE id = %s",
        "DELETE FROM bookings_paymentrecord WHERE id = %s",
    ):
        with pytest.raises(DatabaseError), transaction.atomic(), connection.cursor() as cursor:
            cursor.execute(statement, [record.pk])
    assert PaymentRecord.objects.get(pk=record.pk).amount == Decimal("10.00")


@pytest.mark.parametrize(
    ("payments", "refunds", "state"),
    [
        ([], [], "unpaid"),
        (["20.00"], [], "part_paid"),
        (["48.20"], [], "paid"),
        (["30.00", "18.20"], [], "paid"),
        (["48.20"], ["48.20"], "refunded"),
    ],
)
def test_payment_state_is_derived_from_records(booking_factory, payments, refunds, state):
    booking = booking_factory()
    for amount in payments:
        payment_record_append(booking=booking, amount=Decimal(amount), method="cash")
    for amount in refunds:
        payment_record_append(booking=booking, amount=Decimal(amount), method="cash", kind="refund")
    assert payment_state(list(booking.payment_records.all()), booking.fare) == state
