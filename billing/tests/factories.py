"""Factories for billing's own rows that the back office or a usage record writes: a
partner's fee per completed job and one SMS sent for a driver. Subscriptions start with
their driver or account (billing.services.subscriptions), and invoices, their lines and
credit notes are numbered and immutable, so tests issue them through billing's services;
the week of other apps' records billing reads is built in billing/tests/records.py."""

from __future__ import annotations

from decimal import Decimal

import factory
from django.utils import timezone
from factory.django import DjangoModelFactory

from billing.models import PartnerJobFee, SmsUsage
from drivers.tests.factories import DriverFactory
from partners.tests.factories import AccountFactory


class PartnerJobFeeFactory(DjangoModelFactory):
    """A partner named in the back office as charging 1.50 GBP per completed job."""

    class Meta:
        model = PartnerJobFee

    account = factory.SubFactory(AccountFactory)
    fee_per_job = Decimal("1.50")


class SmsUsageFactory(DjangoModelFactory):
    """One SMS the provider accepted for a driver, now."""

    class Meta:
        model = SmsUsage

    driver = factory.SubFactory(DriverFactory)
    occurred_at = factory.LazyFunction(timezone.now)
    reference = factory.Sequence(lambda n: f"test:sms:{n}")
