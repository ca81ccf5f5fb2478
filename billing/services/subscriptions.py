"""Subscriptions of drivers and partner accounts: trial, billed, suspended (seed 3, 8.2).

The subscription is the one home of a trial: its length comes from the fee schedule
(DRIVER_TRIAL_DAYS from approval, PARTNER_TRIAL_DAYS from account creation), its end is
``Subscription.trial_ends_at`` and nothing else stores it, and the only way to extend it
is :func:`subscription_trial_extend`, which leaves an audit row.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from django.db import transaction
from django.utils import timezone

from billing.fees import fee_schedule_current
from billing.models import Subscription, SubscriptionAudit, SubscriptionStage
from drivers.models import Driver, DriverStage

CHUNK = 2000


def driver_trial_end(*, approved_at: datetime, days: int) -> datetime:
    """Seed 8.2: a driver's free trial runs ``days`` (90) from approval."""
    return approved_at + timedelta(days=days)


def subscription_get_or_create_for_driver(*, driver) -> Subscription | None:
    """The driver's subscription, created on first need with a trial of DRIVER_TRIAL_DAYS
    from approval. ``None`` for a driver who has not been approved yet (jobs are offered
    only after approval, seed 3, so there is nothing to bill)."""
    existing = Subscription.objects.filter(driver=driver).first()
    if existing is not None or driver.approved_at is None:
        return existing
    now = timezone.now()
    trial_ends_at = driver_trial_end(
        approved_at=driver.approved_at, days=fee_schedule_current().driver_trial_days
    )
    Subscription.objects.bulk_create(
        [
            Subscription(
                driver=driver,
                trial_ends_at=trial_ends_at,
            )
        ],
        ignore_conflicts=True,  # a concurrent request may have created it first
    )
    subscription = Subscription.objects.get(driver=driver)
    if trial_ends_at <= now:
        subscription_stages_advance(now=now, subscription_ids=[subscription.pk])
        subscription.refresh_from_db()
    return subscription


def subscription_create_for_account(*, account) -> Subscription:
    """Start a partner account's trial: PARTNER_TRIAL_DAYS (30) from the account's
    creation (seed 8.2). Called by ``partners.services.account_create``; idempotent."""
    trial_ends_at = account.created_at + timedelta(days=fee_schedule_current().partner_trial_days)
    subscription, _ = Subscription.objects.get_or_create(
        account=account, defaults={"trial_ends_at": trial_ends_at}
    )
    return subscription


def subscriptions_ensure(*, now: datetime | None = None) -> int:
    """Create the missing subscriptions of approved drivers, in set-based chunks (no
    per-driver query). Returns how many were created.

    Driver subscriptions are created lazily (here, from beat and before invoicing, and on
    the driver's first read) rather than on approval: the drivers app does not import
    billing. Partner accounts get theirs from ``account_create``.
    """

    now = now or timezone.now()
    schedule = fee_schedule_current()
    created = 0
    missing_drivers = (
        Driver.objects.filter(approved_at__isnull=False, subscription__isnull=True)
        .order_by("pk")
        .values_list("pk", "approved_at")
    )
    batch: list[Subscription] = []
    for driver_id, approved_at in missing_drivers.iterator(chunk_size=CHUNK):
        trial_ends_at = driver_trial_end(approved_at=approved_at, days=schedule.driver_trial_days)
        batch.append(
            Subscription(
                driver_id=driver_id,
                trial_ends_at=trial_ends_at,
            )
        )
        if len(batch) >= CHUNK:
            created += len(Subscription.objects.bulk_create(batch, ignore_conflicts=True))
            batch = []
    if batch:
        created += len(Subscription.objects.bulk_create(batch, ignore_conflicts=True))
    if created:
        # New rows start in trial; those whose trial is already over move on (and their
        # drivers' stage with them).
        subscription_stages_advance(now=now)
    return created


def subscription_stages_advance(
    *, now: datetime | None = None, subscription_ids: list[int] | None = None
) -> int:
    """Move every subscription whose trial has ended from trial to billed (seed 3).

    One UPDATE; suspended subscriptions are left alone. The drivers' own ``stage`` column
    (drivers app) follows, so the driver app shows the same stage. Returns the count.
    """

    now = now or timezone.now()
    with transaction.atomic():
        ending = Subscription.objects.filter(stage=SubscriptionStage.TRIAL, trial_ends_at__lte=now)
        if subscription_ids is not None:
            ending = ending.filter(pk__in=subscription_ids)
        driver_ids = list(ending.filter(driver__isnull=False).values_list("driver_id", flat=True))
        moved = ending.update(stage=SubscriptionStage.BILLED, updated_at=now)
        for start in range(0, len(driver_ids), CHUNK):
            Driver.objects.filter(
                pk__in=driver_ids[start : start + CHUNK],
                stage__in=[DriverStage.APPROVED, DriverStage.TRIAL],
            ).update(stage=DriverStage.BILLED)
    return moved


@transaction.atomic
def subscription_trial_extend(
    *, subscription: Subscription, days: int, actor=None, reason: str = ""
) -> Subscription:
    """Extend a trial by ``days`` (seed 8.2: an administrator may extend a partner trial).

    The extension counts from the later of the current trial end and now, so extending
    an expired trial gives the full ``days`` from today. The row is locked, so two
    administrators extending at once add up rather than overwrite each other. Leaves a
    :class:`SubscriptionAudit` entry; a billed subscription goes back to trial.
    """
    if days <= 0:
        raise ValueError("A trial extension is a positive number of days.")
    locked = Subscription.objects.select_for_update().get(pk=subscription.pk)
    now = timezone.now()
    before = {"stage": locked.stage, "trial_ends_at": locked.trial_ends_at.isoformat()}
    locked.trial_ends_at = max(locked.trial_ends_at, now) + timedelta(days=days)
    if locked.stage == SubscriptionStage.BILLED:
        locked.stage = SubscriptionStage.TRIAL
    locked.save(update_fields=["trial_ends_at", "stage", "updated_at"])
    SubscriptionAudit.objects.create(
        subscription=locked,
        action=SubscriptionAudit.Action.TRIAL_EXTENDED,
        actor=actor,
        reason=reason[:500],
        before=before,
        after={
            "stage": locked.stage,
            "trial_ends_at": locked.trial_ends_at.isoformat(),
            "days": days,
        },
    )
    return locked


@transaction.atomic
def subscription_stage_set(
    *, subscription: Subscription, stage: str, actor=None, reason: str = ""
) -> Subscription:
    """Suspend or reinstate a subscription from the back office, with an audit entry."""
    locked = Subscription.objects.select_for_update().get(pk=subscription.pk)
    before = {"stage": locked.stage}
    locked.stage = stage
    locked.save(update_fields=["stage", "updated_at"])
    if locked.driver_id:
        # The driver app reads Driver.stage (suspended drivers get no offers).
        type(locked.driver).objects.filter(pk=locked.driver_id).update(stage=stage)
    SubscriptionAudit.objects.create(
        subscription=locked,
        action=SubscriptionAudit.Action.STAGE_CHANGED,
        actor=actor,
        reason=reason[:500],
        before=before,
        after={"stage": stage},
    )
    return locked
