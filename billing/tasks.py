"""Celery tasks: thin wrappers that call one billing service each."""

from __future__ import annotations

import logging
from datetime import date

from celery import shared_task

from billing.services import credit_notes, payments
from billing.services.collection import invoices_collect
from billing.services.invoicing import invoices_generate_week
from billing.services.subscriptions import subscriptions_ensure
from billing.weeks import week_start_previous

logger = logging.getLogger(__name__)


@shared_task(name="billing.tasks.invoices_generate_last_week", acks_late=True)
def invoices_generate_last_week(week_start: str | None = None) -> dict:
    """Beat, Mondays 01:00 Europe/London: invoice the week that has just ended.

    Safe to run twice (one invoice per driver and week), so a retried or duplicated beat
    delivery costs a few aggregate queries and bills nobody again.
    """
    week = date.fromisoformat(week_start) if week_start else week_start_previous()
    result = invoices_generate_week(week_start=week)
    logger.info(
        "Invoiced week %s: %s billed, %s free, %s already invoiced, £%s",
        week,
        result.created_billed,
        result.created_free,
        result.already_invoiced,
        result.total_billed,
    )
    return {
        "week_start": week.isoformat(),
        "created_billed": result.created_billed,
        "created_free": result.created_free,
        "already_invoiced": result.already_invoiced,
        "total_billed": str(result.total_billed),
    }


@shared_task(name="billing.tasks.subscriptions_ensure_now", acks_late=True)
def subscriptions_ensure_now() -> int:
    """Beat, every minute: newly approved drivers get their subscription and trial end
    (the drivers app approves without importing billing)."""
    return subscriptions_ensure()


@shared_task(name="billing.tasks.invoices_collect_week", acks_late=True)
def invoices_collect_week(week_start: str) -> int:
    """Hand the week's issued invoices to the collection backend."""
    return invoices_collect(week_start=date.fromisoformat(week_start))


# Invoices per charging task: the billing workers charge the chunks side by side.
CHARGE_CHUNK = 200


@shared_task(name="billing.tasks.payments_charge_due", acks_late=True)
def payments_charge_due() -> int:
    """Beat, every 5 minutes, and after each weekly run: the invoices due, handed out in
    chunks to ``invoices_charge`` tasks. Returns how many were due."""
    due = payments.payments_due()
    for start in range(0, len(due), CHARGE_CHUNK):
        invoices_charge.delay(due[start : start + CHARGE_CHUNK])
    return len(due)


@shared_task(name="billing.tasks.invoices_charge", acks_late=True)
def invoices_charge(invoice_ids: list[int]) -> int:
    """Charge one chunk of due invoices (each is locked and checked again first)."""
    return payments.invoices_charge(invoice_ids=invoice_ids)


@shared_task(name="billing.tasks.payments_reconcile", acks_late=True)
def payments_reconcile() -> int:
    """Beat, every 15 minutes: settle provider payments whose outcome we do not know."""
    return payments.payments_reconcile()


@shared_task(
    name="billing.tasks.credit_note_refund",
    acks_late=True,
    autoretry_for=(Exception,),
    retry_backoff=60,
    max_retries=8,
)
def credit_note_refund(note_id: int) -> str:
    """Refund a credit note through the provider (idempotent by the note's number)."""
    return credit_notes.credit_note_refund(note_id=note_id)
