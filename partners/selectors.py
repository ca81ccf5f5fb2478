"""Read-side queries of the partners app."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from django.db.models import Prefetch, Q, QuerySet
from django.utils import timezone

from bookings.models import Booking, BookingStatus, DispatchQueue
from core.errors import DomainError
from core.localtime import (
    local_datetime,
    local_day_bounds,
    local_midnight,
    local_today,
    local_week_start,
)
from dispatch.models import Offer
from drivers.models import Driver, Vehicle
from partners.models import Account, OperatorUser


def job_get_for_sender(*, account: Account, job_ref: str) -> Booking:
    """The booking the account pushed as ``job_ref``; 404 job_not_found for anyone else's."""
    booking = (
        Booking.objects.select_related("driver", "vehicle")
        .filter(account=account, job_ref=job_ref)
        .exclude(job_ref="")
        .first()
    )
    if booking is None:
        raise DomainError("job_not_found", f"No job {job_ref!r} from this sender.")
    return booking


def jobs_changed_for_sender(
    *,
    account: Account,
    updated_since: dt.datetime,
    after: tuple[dt.datetime, int] | None,
    limit: int,
) -> list[Booking]:
    """The account's pushed jobs changed at or after ``updated_since`` (or, continuing a
    walk, after the ``(updated_at, id)`` of ``after``), oldest change first: one range of
    the ``booking_feed_by_change`` index."""
    jobs = Booking.objects.filter(account=account).exclude(job_ref="")
    if after is not None:
        stamp, pk = after
        jobs = jobs.filter(Q(updated_at__gt=stamp) | Q(updated_at=stamp, pk__gt=pk))
    else:
        jobs = jobs.filter(updated_at__gte=updated_since)
    return list(jobs.order_by("updated_at", "pk")[:limit])


def booking_get_for_holder(
    *, account: Account, reference: str | None = None, job_ref: str | None = None
) -> Booking:
    """A booking the account sent, or holds as a subcontracted fleet (contract 5.2)."""
    holders = Q(account=account) | Q(subcontracted_to=account)
    if reference:
        booking = Booking.objects.filter(holders, reference=reference.strip().upper()).first()
        if booking is None:
            raise DomainError("booking_not_found", f"No booking {reference} held by this account.")
        return booking
    booking = Booking.objects.filter(account=account, job_ref=job_ref).exclude(job_ref="").first()
    if booking is None:
        raise DomainError("job_not_found", f"No job {job_ref!r} from this account.")
    return booking


def fleet_offer_latest_get(*, account: Account, reference: str) -> Offer | None:
    """The latest tier-3 offer of booking ``reference`` to this account's fleet, with its
    booking; None when the fleet was never offered it (contract 5.2, seed 1.3)."""
    return (
        Offer.objects.select_related("booking")
        .filter(fleet__account=account, booking__reference=reference.strip().upper())
        .order_by("-created_at", "-id")
        .first()
    )


def operator_account_for_user(user) -> Account | None:
    if not getattr(user, "is_authenticated", False):
        return None
    link = OperatorUser.objects.select_related("account").filter(user=user).first()
    if link is None or link.account.kind != Account.Kind.OPERATOR:
        return None
    return link.account


def operator_jobs_list(
    *,
    account: Account,
    day: dt.date | None = None,
    status: str | None = None,
    upcoming_only: bool = False,
    now: dt.datetime | None = None,
) -> QuerySet[Booking]:
    """The operator's own queue (seed 4 rule 2), by pickup time; ``day`` is a UK local day."""
    jobs = Booking.objects.select_related("driver", "vehicle").filter(
        account=account, dispatch_queue=DispatchQueue.OPERATOR
    )
    if day is not None:
        start, end = local_day_bounds(day)
        jobs = jobs.filter(pickup_time__gte=start, pickup_time__lt=end)
    if status:
        jobs = jobs.filter(status=status)
    if upcoming_only and now is not None:
        jobs = jobs.filter(pickup_time__gte=now - dt.timedelta(hours=2))
    return jobs.order_by("pickup_time", "id")


def operator_fleet_list(*, account: Account):
    """The operator's own fleet drivers with their active vehicles."""

    return (
        Driver.objects.filter(operator=account)
        .prefetch_related(Prefetch("vehicles", queryset=Vehicle.objects.filter(active=True)))
        .order_by("name")
    )


@dataclass(frozen=True)
class OperatorCalendarDay:
    """One UK local day of the operator's own queue, by hour (0-23)."""

    day: dt.date
    hours: list[tuple[int, list[Booking]]]
    job_count: int
    week: list[tuple[dt.date, int]]  # Monday to Sunday of the day's week: jobs per day

    @property
    def previous_day(self) -> dt.date:
        return self.day - dt.timedelta(days=1)

    @property
    def next_day(self) -> dt.date:
        return self.day + dt.timedelta(days=1)


# How far from today the calendar goes; a day beyond it shows today, as a non-date does.
CALENDAR_REACH = dt.timedelta(days=3660)


def operator_calendar_day(*, account: Account, day: str | dt.date | None) -> OperatorCalendarDay:
    """The operator's jobs of ``day`` (an ISO date within ``CALENDAR_REACH`` of today;
    anything else means today, UK time),
    grouped by local pickup hour, with the number of jobs on each day of its week; one
    query (the week's jobs, split by day here)."""
    today = local_today()
    if not isinstance(day, dt.date):
        try:
            day = dt.date.fromisoformat(day or "")
        except ValueError:
            day = today
    if abs(day - today) > CALENDAR_REACH:
        # 9999-12-31's week ends past the last date there is, 0001-01-01's midnight is
        # before the first instant in UTC: both were 500s (issue 24).
        day = today
    monday = local_week_start(day)
    week_jobs = operator_jobs_list(account=account).filter(
        pickup_time__gte=local_midnight(monday),
        pickup_time__lt=local_midnight(monday + dt.timedelta(days=7)),
    )
    per_day: dict[dt.date, list[Booking]] = {}
    for job in week_jobs:
        per_day.setdefault(local_datetime(job.pickup_time).date(), []).append(job)
    jobs = per_day.get(day, [])
    by_hour: dict[int, list[Booking]] = {}
    for job in jobs:
        by_hour.setdefault(local_datetime(job.pickup_time).hour, []).append(job)
    week_days = [monday + dt.timedelta(days=n) for n in range(7)]
    return OperatorCalendarDay(
        day=day,
        hours=[(hour, by_hour.get(hour, [])) for hour in range(24)],
        job_count=len(jobs),
        week=[(d, len(per_day.get(d, []))) for d in week_days],
    )


def operator_jobs_page(
    *, account: Account, status: str | None, limit: int = 500
) -> tuple[str | None, list[Booking]]:
    """The dashboard list: ``status`` when it is a booking status (else upcoming jobs of
    every status), at most ``limit`` rows; returns the status applied and the jobs."""
    status = status if status in BookingStatus.values else None
    jobs = operator_jobs_list(
        account=account, status=status, upcoming_only=status is None, now=timezone.now()
    )
    return status, list(jobs[:limit])
