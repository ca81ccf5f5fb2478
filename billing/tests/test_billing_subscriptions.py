"""Subscriptions: driver and partner trials, administrator extension with audit."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from django.utils import timezone

from billing.models import Subscription, SubscriptionAudit, SubscriptionStage
from billing.services.subscriptions import (
    subscription_get_or_create_for_driver,
    subscription_stage_set,
    subscription_stages_advance,
    subscription_trial_extend,
    subscriptions_ensure,
)
from drivers.tests.factories import BilledDriverFactory
from partners.models import Account
from partners.tests.factories import AccountFactory

pytestmark = pytest.mark.django_db


def test_driver_trial_is_90_days_from_approval():
    approved = timezone.now() - timedelta(days=10)
    driver = BilledDriverFactory(approved_at=approved, stage="trial")

    subscription = subscription_get_or_create_for_driver(driver=driver)

    assert subscription.trial_ends_at == approved + timedelta(days=90)
    assert subscription.stage == SubscriptionStage.TRIAL


def test_unapproved_driver_has_no_subscription():
    driver = BilledDriverFactory(approved_at=None, stage="signed_up")

    assert subscription_get_or_create_for_driver(driver=driver) is None
    assert subscriptions_ensure() == 0


def test_partner_account_starts_a_30_day_trial_when_created():
    account = AccountFactory(kind=Account.Kind.PARTNER)

    subscription = Subscription.objects.get(account=account)

    assert subscription.trial_ends_at == account.created_at + timedelta(days=30)
    assert subscription.kind == "partner"


def test_operator_accounts_get_no_partner_subscription():
    account = AccountFactory(kind=Account.Kind.OPERATOR)

    assert not Subscription.objects.filter(account=account).exists()


def test_ensure_creates_missing_driver_subscriptions_set_based(django_assert_max_num_queries):
    # Given 25 approved drivers (one long past the trial) and no subscriptions
    old = BilledDriverFactory(approved_at=datetime(2024, 1, 1, tzinfo=UTC))
    for _ in range(24):
        BilledDriverFactory(approved_at=timezone.now() - timedelta(days=1))

    # When subscriptions are ensured, the query count does not depend on the drivers
    with django_assert_max_num_queries(10):
        created = subscriptions_ensure()

    # Then each has one, in the right stage, and a second pass creates none
    assert created == 25
    assert Subscription.objects.get(driver=old).stage == SubscriptionStage.BILLED
    assert Subscription.objects.filter(stage=SubscriptionStage.TRIAL).count() == 24
    assert subscriptions_ensure() == 0


def test_admin_extension_of_a_partner_trial_is_audited(admin_user):
    # Given a partner on a 30-day trial
    account = AccountFactory()
    subscription = Subscription.objects.get(account=account)
    original_end = subscription.trial_ends_at

    # When an administrator extends it by 14 days
    extended = subscription_trial_extend(
        subscription=subscription, days=14, actor=admin_user, reason="Integration delayed"
    )

    # Then the trial ends 14 days later and an audit entry says why
    assert extended.trial_ends_at == original_end + timedelta(days=14)
    audit = SubscriptionAudit.objects.get(action=SubscriptionAudit.Action.TRIAL_EXTENDED)
    assert audit.actor == admin_user
    assert audit.reason == "Integration delayed"
    assert audit.before["trial_ends_at"] == original_end.isoformat()
    assert audit.after["days"] == 14


def test_extending_an_expired_trial_counts_from_today_and_returns_to_trial(admin_user):
    account = AccountFactory()
    Subscription.objects.filter(account=account).update(
        trial_ends_at=timezone.now() - timedelta(days=40), stage=SubscriptionStage.BILLED
    )
    subscription = Subscription.objects.get(account=account)

    extended = subscription_trial_extend(subscription=subscription, days=7, actor=admin_user)

    assert extended.stage == SubscriptionStage.TRIAL
    assert extended.trial_ends_at > timezone.now() + timedelta(days=6)


def test_extension_must_be_positive():
    subscription = Subscription.objects.get(account=AccountFactory())
    with pytest.raises(ValueError):
        subscription_trial_extend(subscription=subscription, days=0)


def test_trials_that_ended_move_to_billed_and_suspended_ones_stay():
    ended = BilledDriverFactory(approved_at=timezone.now() - timedelta(days=91), stage="trial")
    running = BilledDriverFactory(approved_at=timezone.now() - timedelta(days=89), stage="trial")
    subscriptions_ensure(now=timezone.now() - timedelta(days=2))  # both still in trial then
    suspended = Subscription.objects.get(driver=ended)
    subscription_stage_set(subscription=suspended, stage=SubscriptionStage.SUSPENDED)
    Subscription.objects.filter(driver=running).update(
        trial_ends_at=timezone.now() - timedelta(seconds=1)
    )

    moved = subscription_stages_advance()

    assert moved == 1
    assert Subscription.objects.get(driver=running).stage == SubscriptionStage.BILLED
    assert Subscription.objects.get(driver=ended).stage == SubscriptionStage.SUSPENDED
    running.refresh_from_db()
    ended.refresh_from_db()
    assert running.stage == "billed"
    assert ended.stage == "suspended"
