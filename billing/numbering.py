"""Gapless document numbers from locked counter rows.

A PostgreSQL SEQUENCE is not gapless (a rolled-back transaction burns its values), so
invoice and credit note numbers come from a :class:`~billing.models.NumberSequence` row
locked with SELECT ... FOR UPDATE and advanced in the same transaction that inserts the
numbered rows. Concurrent writers queue on the row lock; a rollback undoes both the rows
and the counter, so the numbering never skips.
"""

from __future__ import annotations

from django.db import transaction
from django.db.models import F

from billing.models import NumberSequence

INVOICE = "invoice"
CREDIT_NOTE = "credit_note"


def sequence_lock(*, name: str) -> NumberSequence:
    """Lock the counter row ``name`` (creating it on first use) until the transaction ends.

    Must be called inside ``transaction.atomic``. Every writer of numbered rows of this
    kind takes this lock first, so it also serialises "does this row already exist?"
    checks made after it.
    """
    if not transaction.get_connection().in_atomic_block:
        raise RuntimeError("sequence_lock() needs an open transaction.")
    # ON CONFLICT DO NOTHING: safe when two first-ever writers race to create the row.
    NumberSequence.objects.bulk_create([NumberSequence(name=name)], ignore_conflicts=True)
    return NumberSequence.objects.select_for_update().get(name=name)


def sequence_take(*, sequence: NumberSequence, count: int) -> int:
    """Reserve ``count`` consecutive numbers from a locked ``sequence``; returns the first."""
    first = sequence.next_value
    if count:
        NumberSequence.objects.filter(pk=sequence.pk).update(next_value=F("next_value") + count)
        sequence.next_value = first + count
    return first
