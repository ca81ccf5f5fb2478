"""Celery tasks: thin wrappers that call one billing service each."""

from __future__ import annotations

import logging
from datetime import date

from celery import shared_task

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
