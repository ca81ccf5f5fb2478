"""Celery tasks of the API machinery."""

from __future__ import annotations

import logging

from celery import shared_task

from api.idempotency import idempotency_records_purge as records_purge

logger = logging.getLogger(__name__)


@shared_task(ignore_result=True)
def idempotency_records_purge() -> int:
    """Delete Idempotency-Key records past their 24-hour retention (contract 1.3)."""
    deleted = records_purge()
    if deleted:
        logger.info("idempotency: purged %d records past retention", deleted)
    return deleted
