"""Keeping the tariff registry true (issue 21): which tables have not been checked against
their publisher for a year. The admin marks them; ``manage.py tariffs_stale`` lists them."""

from __future__ import annotations

import datetime as dt

from django.utils import timezone

from pricing.models import Tariff, TariffKind, TariffLifecycle

STALE_AFTER_DAYS = 365


def tariff_is_stale(tariff: Tariff, *, today: dt.date | None = None) -> bool:
    """A council table that may still price journeys (current, proposed or partial) whose
    last check is unknown or older than ``STALE_AFTER_DAYS``. Historical tables and the
    network's own rates are never stale: nobody will publish them again."""
    if tariff.kind != TariffKind.COUNCIL or tariff.lifecycle == TariffLifecycle.HISTORICAL:
        return False
    today = today or timezone.localdate()
    return tariff.checked_on is None or (today - tariff.checked_on).days > STALE_AFTER_DAYS


def tariffs_stale(*, today: dt.date | None = None) -> list[Tariff]:
    """The stale tables, oldest check first (never checked first of all)."""
    tables = [
        t for t in Tariff.objects.filter(kind=TariffKind.COUNCIL) if tariff_is_stale(t, today=today)
    ]
    return sorted(tables, key=lambda t: (t.checked_on or dt.date.min, t.authority))
