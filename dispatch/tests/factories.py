"""Factories for what dispatch owns: partner fleets, operator licences and the job cards
it sends (the notification log)."""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal

import factory
from django.utils import timezone
from factory.django import DjangoModelFactory

from dispatch.models import NotificationLog, OperatorLicence, PartnerFleet
from drivers.tests.factories import DriverFactory
from partners.tests.factories import AccountFactory


class PartnerFleetFactory(DjangoModelFactory):
    class Meta:
        model = PartnerFleet

    account = factory.SubFactory(AccountFactory, webhook_url="https://fleet.example/hooks/dtd")
    active = True


class OperatorLicenceFactory(DjangoModelFactory):
    class Meta:
        model = OperatorLicence

    account = factory.SubFactory(AccountFactory, kind="operator")
    licensing_authority = "Leeds City Council"
    licence_number = factory.Sequence(lambda n: f"OP{n:05d}")
    licence_expiry = factory.LazyFunction(lambda: timezone.localdate() + timedelta(days=365))


class NotificationLogFactory(DjangoModelFactory):
    """A job card the provider accepted; an SMS costs 0.02 GBP (seed 8.5), WhatsApp nothing."""

    class Meta:
        model = NotificationLog

    driver = factory.SubFactory(DriverFactory)
    channel = "sms"
    to = factory.LazyAttribute(lambda o: o.driver.phone)
    body = "Job card"
    status = "sent"
    cost_gbp = factory.LazyAttribute(
        lambda o: Decimal("0.02") if o.channel == "sms" else Decimal("0.00")
    )
