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


def jobs_held(driver, count: int, *, pickup_time=None) -> list:
    """``count`` accepted jobs ``driver`` holds, picking up at ``pickup_time`` (by default
    in an hour, when ``BookingFactory``'s bookings pick up, so that they overlap): the load
    capacity in time counts (issue 34), and the counter the app shows."""
    from bookings.tests.factories import BookingFactory
    from dispatch.models import Offer, OfferStatus, Tier
    from dispatch.services.matching import job_busy_window
    from drivers.models import Driver

    pickup_time = pickup_time or timezone.now() + timedelta(hours=1)
    held = []
    for _ in range(count):
        booking = BookingFactory(
            pickup_time=pickup_time, status="accepted", driver=driver, duration_minutes=30
        )
        busy_from, busy_until = job_busy_window(pickup_time, 30)
        held.append(
            Offer.objects.create(
                booking=booking,
                tier=Tier.MANUAL,
                driver=driver,
                status=OfferStatus.ACCEPTED,
                expires_at=pickup_time,
                busy_from=busy_from,
                busy_until=busy_until,
            )
        )
    Driver.objects.filter(pk=driver.pk).update(current_jobs=count)
    return held
