"""The records billing reads, written as a week of work would leave them: payments
(bookings), completion events of partner jobs (bookings) and SMS job cards (dispatch),
at Europe/London times."""

from __future__ import annotations

from datetime import date, datetime, timedelta
from decimal import Decimal

from billing.services.usage import sms_usage_record
from bookings.models import BookingStatus, PaymentRecord
from bookings.tests.factories import BookingEventFactory, BookingFactory, PaymentRecordFactory
from core.localtime import local_zone
from dispatch.tests.factories import NotificationLogFactory


def completed_booking(**fields):
    """A booking taken from the website and completed (the kind billing charges for)."""
    fields.setdefault("source", "website")
    fields.setdefault("dropoff", "Leeds Bradford Airport")
    fields.setdefault("fare", Decimal("30.00"))
    fields.setdefault("status", BookingStatus.COMPLETED)
    return BookingFactory(**fields)


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
    return PaymentRecordFactory(
        booking=booking or completed_booking(driver=driver),
        driver=driver,
        kind=kind,
        amount=Decimal(amount),
        method=method,
        processor_fee=Decimal(processor_fee),
        occurred_at=at,
    )


def completed_job(*, driver, account, at: datetime, status: str = BookingStatus.COMPLETED):
    """A booking sent by ``account`` and completed (its completion event) at ``at``."""
    booking = completed_booking(driver=driver, account=account, source="partner", status=status)
    if status == BookingStatus.COMPLETED:
        BookingEventFactory(
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
    """A job card as dispatch leaves it: its log row, and for an SMS the provider accepted,
    the usage billing records (dispatch.services.job_cards); WhatsApp and failed SMS cost
    nothing."""
    log = NotificationLogFactory(driver=driver, channel=channel, status=status, created_at=at)
    if channel == "sms" and status == "sent":
        sms_usage_record(driver_id=driver.pk, occurred_at=at, reference=f"test:{log.pk}")
    return log


def at_london(day: date, hour: int = 12, minute: int = 0, second: int = 0) -> datetime:
    return datetime(day.year, day.month, day.day, hour, minute, second, tzinfo=local_zone())


def after(week_start: date) -> datetime:
    """A moment safely after the week has ended (the beat runs Monday 01:00)."""
    return at_london(week_start + timedelta(days=7), 1)
