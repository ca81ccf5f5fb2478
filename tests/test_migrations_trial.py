"""billing 0003 folds the trial ends that accounts and drivers kept into the subscription
before partners 0005 and drivers 0003 drop those columns."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta

import pytest

from core.testing.migrations import migrate, migrate_to_latest

BEFORE = [
    ("billing", "0002_immutable_records_and_counters"),
    ("partners", "0004_account_rate_limit_format"),
    ("drivers", "0002_vehicle_class_choices_from_table"),
]
AFTER = [
    ("billing", "0003_subscription_holds_every_trial_end"),
    ("partners", "0005_account_trial_end_moved_to_subscription"),
    ("drivers", "0003_driver_trial_end_moved_to_subscription"),
]


@pytest.mark.django_db(transaction=True)
def test_trial_ends_move_into_the_subscription():
    old = migrate(BEFORE)
    try:
        Account = old.get_model("partners", "Account")
        Driver = old.get_model("drivers", "Driver")
        Subscription = old.get_model("billing", "Subscription")
        created = datetime(2026, 10, 1, 9, 0, tzinfo=UTC)
        extended_end = created + timedelta(days=60)  # the unaudited partners action
        extended = Account.objects.create(
            kind="partner", name="A", slug="a", created_at=created, trial_ends_at=extended_end
        )
        Subscription.objects.create(account=extended, trial_ends_at=created + timedelta(days=30))
        no_subscription = Account.objects.create(
            kind="partner", name="B", slug="b", created_at=created
        )
        approved = datetime(2026, 9, 1, 9, 0, tzinfo=UTC)
        driver = Driver.objects.create(
            name="D",
            phone="+447700900001",
            licensing_authority="Leeds",
            licence_number="L1",
            licence_expiry=date(2030, 1, 1),
            base_city="Leeds",
            base_lat=53.8,
            base_lng=-1.55,
            approved_at=approved,
            trial_ends_at=approved + timedelta(days=90),
        )

        new = migrate(AFTER)

        Subscription = new.get_model("billing", "Subscription")
        assert Subscription.objects.get(account_id=extended.pk).trial_ends_at == extended_end
        assert Subscription.objects.get(
            account_id=no_subscription.pk
        ).trial_ends_at == created + timedelta(days=30)
        assert Subscription.objects.get(driver_id=driver.pk).trial_ends_at == approved + timedelta(
            days=90
        )
    finally:
        migrate_to_latest()
