"""Factories for billing tests: drivers, partner accounts, bookings and the records that
billing reads (payment records, completion events, SMS log)."""

from __future__ import annotations

import itertools
from datetime import UTC, date, datetime, timedelta
from decimal import Decimal

import factory
from django.utils import timezone

from billing.services.usage import sms_usage_record
from bookings.models import Booking, BookingEvent, BookingStatus, PaymentRecord
from drivers.models import Driver, DriverStage
from partners.models import Account
from partners.services.accounts import account_created

_refs = itertools.count(1)


class DriverFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Driver

    name = factory.Sequence(lambda n: f"Driver {n}")
    phone = factory.Sequence(lambda n: f"+4477009{n:05d}")
    stage = DriverStage.BILLED
    # Approved long ago: past the 90-day trial unless a test says otherwise.
    approved_at = factory.LazyFunction(lambda: datetime(2025, 1, 6, 9, 0, tzinfo=UTC))
    licensing_authority = "Leeds City Council"
    licence_number = factory.Sequence(lambda n: f"LCC{n:06d}")
    licence_expiry = date(2030, 1, 1)
    base_city = "Leeds"
    base_lat = 53.7997
    base_lng = -1.5492


class AccountFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Account
        skip_postgeneration_save = True

    kind = Account.Kind.PARTNER
    name = factory.Sequence(lambda n: f"Partner {n}")
    slug = factory.Sequence(lambda n: f"partner-{n}")
    approved = True

    @factory.post_generation
    def onboarded(obj, create, extracted, **kwargs):
        # As every door that creates an account does (partners.services.account_created).
        if create:
            account_created(account=obj)


class BookingFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Booking

    reference = factory.LazyFunction(lambda: f"DTD-B{next(_refs):07d}")
    source = "website"
    pickup = "Leeds station"
    dropoff = "Leeds Bradford Airport"
    pickup_time = factory.LazyFunction(timezone.now)
    fare = Decimal("30.00")
    status = BookingStatus.COMPLETED


def payment(
    *,
    driver,
    amount: str,
    at: datetime,
    kind: str = PaymentRecord.Kind.PAYMENT,
    method: str = "cash_to_driver",
    processor_fee: str = "0.00",
    booking=None,
) -> PaymentRecord:
    booking = booking or BookingFactory(driver=driver)
    return PaymentRecord.objects.create(
        booking=booking,
        driver=driver,
        kind=kind,
        amount=Decimal(amount),
        method=method,
        processor_fee=Decimal(processor_fee),
        occurred_at=at,
    )


def completed_job(*, driver, account, at: datetime, status: str = BookingStatus.COMPLETED):
    """A booking sent by ``account`` and completed (its completion event) at ``at``."""
    booking = BookingFactory(driver=driver, account=account, source="partner", status=status)
    if status == BookingStatus.COMPLETED:
        BookingEvent.objects.create(
            booking=booking,
            sequence=2,
            type="booking.completed",
            from_status="on_board",
            to_status=BookingStatus.COMPLETED,
            actor="driver",
            created_at=at,
        )
    return booking


def notification(*, driver, channel: str, at: datetime, status: str = "sent"):
    """A job card as dispatch leaves it: an SMS the provider accepted is recorded with
    billing (dispatch.services.job_cards); WhatsApp and failed SMS are not."""
    if channel == "sms" and status == "sent":
        sms_usage_record(driver_id=driver.pk, occurred_at=at, reference=f"test:{next(_refs)}")


def at_london(day: date, hour: int = 12, minute: int = 0, second: int = 0) -> datetime:
    from zoneinfo import ZoneInfo

    return datetime(
        day.year, day.month, day.day, hour, minute, second, tzinfo=ZoneInfo("Europe/London")
    )


def after(week_start: date) -> datetime:
    """A moment safely after the week has ended (the beat runs Monday 01:00)."""
    return at_london(week_start + timedelta(days=7), 1)
