"""Subscriptions of drivers and partner accounts: trial, billed, suspended (seed 3, 8.2)."""

from __future__ import annotations

from datetime import datetime, timedelta

from django.db import transaction
from django.utils import timezone

from billing.fees import fee_schedule_current
from billing.models import Subscription, SubscriptionAudit, SubscriptionStage

CHUNK = 2000


def _driver_trial_field() -> str | None:
    """The drivers app keeps its own copy of the trial end (``Driver.trial_ends_at``);
    when it has one set, it wins over the default 90 days from approval."""
    from drivers.models import Driver

    names = {f.name for f in Driver._meta.get_fields()}
    return "trial_ends_at" if "trial_ends_at" in names else None


def _driver_trial_end(*, approved_at: datetime, recorded: datetime | None, days: int) -> datetime:
    return recorded or approved_at + timedelta(days=days)


def subscription_get_or_create_for_driver(*, driver) -> Subscription | None:
    """The driver's subscription, created on first need with a trial of DRIVER_TRIAL_DAYS
    from approval. ``None`` for a driver who has not been approved yet (jobs are offered
    only after approval, seed 3, so there is nothing to bill)."""
    existing = Subscription.objects.filter(driver=driver).first()
    if existing is not None or driver.approved_at is None:
        return existing
    now = timezone.now()
    field = _driver_trial_field()
    trial_ends_at = _driver_trial_end(
        approved_at=driver.approved_at,
        recorded=getattr(driver, field) if field else None,
        days=fee_schedule_current().driver_trial_days,
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
    """A partner account's subscription: PARTNER_TRIAL_DAYS from the account's creation,
    or the trial end already recorded on the account."""
    trial_ends_at = account.trial_ends_at or account.created_at + timedelta(
        days=fee_schedule_current().partner_trial_days
    )
    subscription, _ = Subscription.objects.get_or_create(
        account=account, defaults={"trial_ends_at": trial_ends_at}
    )
    return subscription


def subscriptions_ensure(*, now: datetime | None = None) -> int:
    """Create the missing subscriptions of approved drivers and partner accounts, in
    set-based chunks (no per-driver query). Returns how many were created.

    Subscriptions are created lazily rather than from a signal on every driver save, which
    would add a query to hot paths (availability updates) owned by other apps.
    """
    from drivers.models import Driver
    from partners.models import Account

    now = now or timezone.now()
    schedule = fee_schedule_current()
    created = 0
    field = _driver_trial_field()
    missing_drivers = (
        Driver.objects.filter(approved_at__isnull=False, subscription__isnull=True)
        .order_by("pk")
        .values_list("pk", "approved_at", field or "approved_at")
    )
    batch: list[Subscription] = []
    for driver_id, approved_at, recorded in missing_drivers.iterator(chunk_size=CHUNK):
        trial_ends_at = _driver_trial_end(
            approved_at=approved_at,
            recorded=recorded if field else None,
            days=schedule.driver_trial_days,
        )
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
    for account in Account.objects.filter(
        kind=Account.Kind.PARTNER, subscription__isnull=True
    ).iterator():
        subscription_create_for_account(account=account)
        created += 1
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
    from drivers.models import Driver, DriverStage

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
    # Keep the partners and drivers apps' copies of the trial end in step with this one.
    if locked.account_id:
        type(locked.account).objects.filter(pk=locked.account_id).update(
            trial_ends_at=locked.trial_ends_at
        )
    elif _driver_trial_field():
        type(locked.driver).objects.filter(pk=locked.driver_id).update(
            trial_ends_at=locked.trial_ends_at
        )
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
