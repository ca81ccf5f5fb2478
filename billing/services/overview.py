"""What a driver sees of their subscription: the page ``driver/billing/`` and the driver
app's ``GET /api/public/v1/driver/subscription`` (contract 6) both read this one function.

It is a service rather than a selector because a driver's subscription is created lazily
on first need (billing/README.md), which this may do.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime
from decimal import Decimal

from django.utils import timezone

from billing.fees import FeeSchedule, fee_schedule_current
from billing.models import (
    INVOICE_STATUSES_OWED,
    Invoice,
    InvoiceStatus,
    Subscription,
    SubscriptionStage,
)
from billing.selectors import invoice_list_for_driver
from billing.services.driver_weeks import ZERO, DriverWeek, driver_weeks_collect, week_in_trial
from billing.services.invoicing import invoice_build
from billing.services.subscriptions import subscription_get_or_create_for_driver
from billing.weeks import week_bounds, week_start_of
from core.localtime import local_today

# Contract 6 names the stages the driver app shows; a suspended subscription is "paused".
# "cancelled" is in the contract for apps; nothing cancels a driver's subscription yet.
APP_STAGES = {
    SubscriptionStage.TRIAL: "trial",
    SubscriptionStage.BILLED: "billed",
    SubscriptionStage.SUSPENDED: "paused",
}


@dataclass(frozen=True)
class CurrentWeek:
    """The billing week under way (Monday 00:00 UK time to now), priced as it stands."""

    start: date
    earnings: Decimal
    fee_due: Decimal  # the software fee the week costs if it ended now (0 in the trial)


@dataclass(frozen=True)
class DriverSubscriptionOverview:
    subscription: Subscription | None  # None until an operator approves the driver
    schedule: FeeSchedule
    current_week: CurrentWeek
    weeks: list[Invoice]  # every billed or free week, newest first

    @property
    def stage(self) -> str:
        """The contract's stage: an unapproved driver's trial has not started yet."""
        if self.subscription is None:
            return "trial"
        return APP_STAGES.get(self.subscription.stage, self.subscription.stage)

    @property
    def trial_ends_at(self) -> datetime | None:
        return self.subscription.trial_ends_at if self.subscription else None

    @property
    def invoices(self) -> list[Invoice]:
        """Weeks that were invoiced (they have a number); free weeks are not invoices."""
        return [week for week in self.weeks if week.number]

    @property
    def paid_weeks(self) -> int:
        return sum(1 for week in self.weeks if week.status == InvoiceStatus.PAID)

    @property
    def outstanding(self) -> list[Invoice]:
        return [week for week in self.weeks if week.status in INVOICE_STATUSES_OWED]


def driver_subscription_overview(
    *, driver, now: datetime | None = None
) -> DriverSubscriptionOverview:
    """The driver's stage, trial end, fees, the week so far and their past weeks.

    Guarantees: the current week is priced by the same rules as the weekly invoice
    (``invoice_build``, ``week_in_trial``) from the same records, so what the driver sees
    during the week is what Monday's invoice charges if nothing else happens. A constant
    number of queries.
    """
    now = now or timezone.now()
    subscription = subscription_get_or_create_for_driver(driver=driver)
    schedule = fee_schedule_current()
    start_day = week_start_of(local_today(now))
    start, end = week_bounds(start_day)
    so_far = driver_weeks_collect(start=start, end=end, driver_id=driver.pk).get(
        driver.pk, DriverWeek(driver_id=driver.pk)
    )
    trial_ends_at = subscription.trial_ends_at if subscription else None
    priced, _ = invoice_build(
        driver_week=so_far,
        in_trial=week_in_trial(trial_ends_at=trial_ends_at, week_start_at=start),
        schedule=schedule,
        partner_rates={},
    )
    return DriverSubscriptionOverview(
        subscription=subscription,
        schedule=schedule,
        current_week=CurrentWeek(
            start=start_day, earnings=so_far.earnings, fee_due=priced.subtotal_fee or ZERO
        ),
        weeks=list(invoice_list_for_driver(driver=driver)),
    )
