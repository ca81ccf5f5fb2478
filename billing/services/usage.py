"""Usage that billing passes through to drivers, recorded by the apps that cause it."""

from __future__ import annotations

from datetime import datetime

from billing.models import SmsUsage


def sms_usage_record(*, driver_id: int, occurred_at: datetime, reference: str) -> None:
    """Record one SMS sent for the driver (seed 8.5: 0.02 GBP each, passed through).

    Call once the provider has accepted the message. Guarantees: one row per
    ``reference`` however often it is called (a unique constraint), so a retried task
    never bills an SMS twice.
    """
    SmsUsage.objects.bulk_create(
        [SmsUsage(driver_id=driver_id, occurred_at=occurred_at, reference=reference)],
        ignore_conflicts=True,
    )
