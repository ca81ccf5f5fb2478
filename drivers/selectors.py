"""Read-side queries for the driver app feed and the driver dashboard."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from decimal import Decimal

from django.utils import timezone

from bookings.models import Booking, BookingStatus, PaymentRecord
from bookings.transitions import DRIVER_HOLDS
from core.encryption import secret_decrypt
from core.localtime import local_datetime, local_midnight, local_today, local_week_start
from dispatch.links import offer_link_path
from dispatch.models import Offer, OfferStatus
from drivers.models import Driver

DASHBOARD_WEEKS = 8
ZERO = Decimal("0.00")


@dataclass
class FeedItem:
    booking: Booking
    offer: Offer | None
    assigned: bool  # the passenger's contact details are shown only once assigned


def driver_jobs_feed(*, driver: Driver) -> list[FeedItem]:
    """Open offers to the driver, then jobs they hold, soonest pickup first (two queries)."""
    offers = (
        Offer.objects.filter(driver=driver, status=OfferStatus.OPEN)
        .select_related("booking__flight_arrival")
        .order_by("booking__pickup_time", "pk")
    )
    items = [FeedItem(booking=o.booking, offer=o, assigned=False) for o in offers]
    jobs = (
        Booking.objects.filter(driver=driver, status__in=DRIVER_HOLDS)
        .select_related("flight_arrival")
        .order_by("pickup_time", "pk")
    )
    items += [FeedItem(booking=b, offer=None, assigned=True) for b in jobs]
    return items


@dataclass
class DashboardJob:
    booking: Booking
    earnings: Decimal
    dead_miles: Decimal


@dataclass
class PeriodTotals:
    """Earnings are what the payment records say the driver took, never quoted fares."""

    start: date
    jobs: int = 0
    payments: Decimal = ZERO
    refunds: Decimal = ZERO
    processor_fees: Decimal = ZERO
    dead_miles: Decimal = Decimal("0.0")

    @property
    def earnings(self) -> Decimal:
        return self.payments - self.refunds


@dataclass
class DashboardOffer:
    """An open offer on the dashboard; ``link`` opens its job card to accept or decline."""

    offer: Offer
    link: str

    @property
    def booking(self) -> Booking:
        return self.offer.booking


@dataclass
class DriverDashboard:
    today: PeriodTotals
    this_week: PeriodTotals
    offers: list[DashboardOffer] = field(default_factory=list)
    in_hand: list[Booking] = field(default_factory=list)  # accepted, not yet finished
    today_jobs: list[DashboardJob] = field(default_factory=list)
    week_jobs: list[DashboardJob] = field(default_factory=list)
    weeks: list[PeriodTotals] = field(default_factory=list)  # newest first


def _week_start(moment: datetime) -> date:
    return local_week_start(local_datetime(moment).date())


def driver_dashboard(*, driver: Driver, now: datetime | None = None) -> DriverDashboard:
    """Open offers (each with its job-card link), the jobs in hand, today's and this
    week's jobs, earnings, dead mileage and weekly totals.

    Reconciled against the immutable payment records (seed 1.3 "track and settle"):
    earnings = payments minus refunds recorded for the driver, bucketed by when the money
    moved; jobs and dead miles are bucketed by pickup time. Weeks are Monday to Sunday in
    Europe/London. A fixed number of queries whatever the number of jobs.
    """
    now = now or timezone.now()
    today = local_today(now)
    this_week = _week_start(now)
    first_week = this_week - timedelta(weeks=DASHBOARD_WEEKS - 1)
    since = local_midnight(first_week)
    until = local_midnight(this_week + timedelta(weeks=1))

    weeks = {
        first_week + timedelta(weeks=i): PeriodTotals(start=first_week + timedelta(weeks=i))
        for i in range(DASHBOARD_WEEKS)
    }
    day = PeriodTotals(start=today)

    per_booking: dict[int, Decimal] = defaultdict(lambda: ZERO)
    records = PaymentRecord.objects.filter(
        driver=driver, occurred_at__gte=since, occurred_at__lt=until
    ).values_list("booking_id", "kind", "amount", "processor_fee", "occurred_at")
    for booking_id, kind, amount, fee, occurred_at in records:
        buckets = [weeks[_week_start(occurred_at)]]
        if local_datetime(occurred_at).date() == today:
            buckets.append(day)
        for bucket in buckets:
            if kind == PaymentRecord.Kind.PAYMENT:
                bucket.payments += amount
            elif kind == PaymentRecord.Kind.REFUND:
                bucket.refunds += amount
            bucket.processor_fees += fee
        if kind == PaymentRecord.Kind.PAYMENT:
            per_booking[booking_id] += amount
        elif kind == PaymentRecord.Kind.REFUND:
            per_booking[booking_id] -= amount

    dead_by_booking = dict(
        Offer.objects.filter(
            driver=driver,
            status=OfferStatus.ACCEPTED,
            booking__pickup_time__gte=since,
            booking__pickup_time__lt=until,
            dead_miles__isnull=False,
        ).values_list("booking_id", "dead_miles")
    )
    bookings = (
        Booking.objects.filter(driver=driver, pickup_time__gte=since, pickup_time__lt=until)
        .exclude(status=BookingStatus.CANCELLED)
        .select_related("vehicle")
        .order_by("pickup_time", "pk")
    )
    open_offers = (
        Offer.objects.filter(driver=driver, status=OfferStatus.OPEN, expires_at__gt=now)
        .select_related("booking")
        .order_by("expires_at", "pk")
    )
    dashboard = DriverDashboard(
        today=day,
        this_week=weeks[this_week],
        offers=[DashboardOffer(offer=o, link=offer_link_path(o.pk)) for o in open_offers],
        in_hand=list(
            Booking.objects.filter(driver=driver, status__in=DRIVER_HOLDS).order_by(
                "pickup_time", "pk"
            )
        ),
    )
    for booking in bookings:
        dead = dead_by_booking.get(booking.pk) or Decimal("0.0")
        job = DashboardJob(booking=booking, earnings=per_booking[booking.pk], dead_miles=dead)
        week = weeks[_week_start(booking.pickup_time)]
        week.jobs += 1
        week.dead_miles += dead
        if week.start == this_week:
            dashboard.week_jobs.append(job)
        if local_datetime(booking.pickup_time).date() == today:
            day.jobs += 1
            day.dead_miles += dead
            dashboard.today_jobs.append(job)
    dashboard.weeks = sorted(weeks.values(), key=lambda w: w.start, reverse=True)
    return dashboard


def driver_maps_key(driver: Driver) -> str:
    """The driver's own maps API key in plain text, for the routing of their jobs only
    (seed 8.5); "" when they have none (or it can no longer be decrypted)."""
    return secret_decrypt(driver.maps_api_key_encrypted)


def driver_maps_key_state(driver: Driver) -> str:
    """What anyone may be shown of the key once saved: whether it is set, and its last four
    characters."""
    key = driver_maps_key(driver)
    if not key:
        return "not set"
    return f"set, ending ...{key[-4:]}" if len(key) >= 12 else "set"
