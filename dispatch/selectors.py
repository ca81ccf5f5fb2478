"""Reads that show a booking with dispatch's state, composed here above bookings and
drivers: the passenger's tracking page (statusUrl: the booking with where its driver is,
``dispatch.locations``, and the flight of an airport pickup, ``dispatch.airports``), and
the driver's feed (the app's ``GET /v1/jobs``) and dashboard (offers, jobs in hand,
earnings).
"""

from __future__ import annotations

import datetime as dt
from collections import defaultdict
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from decimal import Decimal

from django.db.models import Exists, OuterRef, Q
from django.utils import timezone

from bookings.models import Booking, BookingEvent, BookingStatus, PaymentRecord
from bookings.selectors import PAYMENT_WORDS, dispatch_opens_at, driver_public_summary
from bookings.services import payment_state
from bookings.transitions import AWAITING_PICKUP, CANCELLABLE, DRIVER_HOLDS, TERMINAL
from core.localtime import (
    local_datetime,
    local_midnight,
    local_time_format,
    local_today,
    local_week_start,
    local_zone_abbreviation,
)
from dispatch import conf
from dispatch.airports import airport_pickup_summary
from dispatch.links import offer_link_path
from dispatch.locations import booking_live_position
from dispatch.models import Offer, OfferStatus
from drivers.models import Driver
from pricing.vehicles import VEHICLE_CLASS_BY_CODE

# The status in plain words, as the tracking page heads it; and what each step of the
# history says. Raw event names (booking.status_changed) never reach a passenger.
STATUS_WORDS: dict[str, str] = {
    BookingStatus.CONFIRMED: "Booked: finding you a driver",
    BookingStatus.OFFERED: "Offered to a driver",
    BookingStatus.ACCEPTED: "Driver accepted",
    BookingStatus.EN_ROUTE: "Driver on the way",
    BookingStatus.ARRIVED: "Driver has arrived",
    BookingStatus.ON_BOARD: "On board",
    BookingStatus.COMPLETED: "Journey completed",
    BookingStatus.CANCELLED: "Cancelled",
    BookingStatus.NO_SHOW: "Driver waited; marked as a no-show",
    # Offered again when a driver near the pickup comes online or finishes a trip
    # (dispatch.services.offers.no_driver_bookings_retry), and by the desk.
    BookingStatus.NO_DRIVER: (
        "No driver free yet: we offer it to the next driver near you who comes online or "
        "finishes a trip"
    ),
}
# A move back to a status says more than the status: the driver dropped out, and
# dispatch asks the next one.
BACK_TO_WORDS: dict[str, str] = {BookingStatus.CONFIRMED: "Looking for another driver"}
EVENT_WORDS: dict[str, str] = {"booking.created": "Booked", "booking.amended": "Details changed"}


def _step_words(event: BookingEvent) -> str:
    if event.type in EVENT_WORDS:
        return EVENT_WORDS[event.type]
    if event.from_status and event.to_status in BACK_TO_WORDS:
        return BACK_TO_WORDS[event.to_status]
    return STATUS_WORDS.get(event.to_status, "Updated")


def _moment(moment) -> dict | None:
    """A moment for the page: ISO in UTC for machines, UK local time for people."""
    if moment is None:
        return None
    return {
        "iso": moment.astimezone(dt.UTC).isoformat().replace("+00:00", "Z"),
        "text": local_time_format(moment),
        "short": local_time_format(moment, "short"),
        "zone": local_zone_abbreviation(moment),
    }


def _point(lat: float | None, lng: float | None) -> list[float] | None:
    return None if lat is None or lng is None else [lat, lng]


def _vehicle_label(code: str) -> str:
    vehicle_class = VEHICLE_CLASS_BY_CODE.get(code)
    return vehicle_class.label if vehicle_class else code


# A completed trip may still be paid (the driver records it after the drop-off): the
# tracking page follows it until the payment is in.
PAYMENT_SETTLED = frozenset({"paid", "refunded"})


def tracking_finished(status: str, payment: str) -> bool:
    """Whether nothing more can change on the tracking page: a booking cancelled or a
    no-show, or completed and paid (or refunded)."""
    if status == BookingStatus.COMPLETED:
        return payment in PAYMENT_SETTLED
    return status in TERMINAL


def booking_tracking_state(booking: Booking) -> dict:
    """Everything the tracking page shows about ``booking``, rendered into the page and
    served as JSON to its live updates: one dict, so a new item is one line here (and its
    place in the template and in static/js/tracking.js).

    ``version`` is the booking's event sequence and the number of its payment records:
    the page redraws when either changes (a payment recorded after ``completed``).
    ``finished`` is true once nothing more can change (``tracking_finished``): the page
    then stops asking.
    """
    events = list(booking.events.order_by("sequence"))
    live = _driver_position(booking)
    records = list(booking.payment_records.all())
    paid = payment_state(records, booking.fare_due)
    return {
        "reference": booking.reference,
        "version": f"{booking.sequence}.{len(records)}",
        "status": booking.status,
        "statusWords": STATUS_WORDS.get(booking.status, booking.status),
        "finished": tracking_finished(booking.status, paid),
        "cancellable": booking.status in CANCELLABLE,
        "pickupTime": _moment(booking.pickup_time),
        "pickup": booking.pickup,
        "dropoff": booking.dropoff,
        "passengers": booking.passengers,
        "vehicleType": booking.vehicle_type,
        "vehicleLabel": _vehicle_label(booking.vehicle_type),
        "fare": f"{booking.fare_due:.2f}",
        "currency": booking.currency,
        "payment": {"state": paid, "words": PAYMENT_WORDS.get(paid, paid)},
        "driver": driver_public_summary(booking.driver, booking.vehicle),
        # Told to the driver at the kerb to start the trip (bookings.pickup_codes); shown
        # until the passenger is on board.
        "pickupCode": booking.pickup_code if booking.status in AWAITING_PICKUP else None,
        # The sketch map's points, [lat, lng] or None; tracking.js also draws a "driver"
        # point here once one is given.
        "map": {
            "pickup": _point(booking.pickup_lat, booking.pickup_lng),
            "dropoff": _point(booking.dropoff_lat, booking.dropoff_lng),
            "driver": _point(live["lat"], live["lng"]) if live else None,
        },
        # Where the car is while a driver holds the job (the booking.driver_location
        # events' own builder); the page redraws it on every poll, not only on a new event.
        "driverPosition": live,
        "timeline": [
            {"words": _step_words(event), "at": _moment(event.created_at)} for event in events
        ],
        "dispatchStartsAt": _moment(_dispatch_start_ahead(booking)),
        "airportPickup": _airport_pickup(booking),
        # What the passenger bought (contract 2.1 meetAndGreet): the page promises a driver
        # in the arrivals hall only then.
        "meetAndGreet": booking.meet_and_greet,
        "waitingCharge": next(
            (line for line in booking.final_fare_lines or () if line.get("code") == "waiting"),
            None,
        ),
    }


def _dispatch_start_ahead(booking: Booking) -> dt.datetime | None:
    """When dispatch will start, while it has not yet (the passenger page says so)."""
    if booking.status != BookingStatus.CONFIRMED or booking.dispatch_started_at:
        return None
    return dispatch_opens_at(booking)


def _driver_position(booking: Booking) -> dict | None:
    live = booking_live_position(booking)
    if live is None:
        return None
    if live["etaMinutes"] == 0:
        words = "Your driver is at the pickup."
    elif live["etaMinutes"] is None:
        words = "Your driver is on the way."
    else:
        end = "drop-off" if live["etaTo"] == "dropoff" else "pickup"
        words = f"Your driver is about {live['etaMinutes']} min from your {end}."
    return {**live, "words": words}


def _airport_pickup(booking: Booking) -> dict | None:
    summary = airport_pickup_summary(booking)
    if summary is not None:
        summary = {**summary, "landingAt": _moment(summary["landingAt"])}
    return summary


# --- the driver's feed and dashboard -----------------------------------------------------

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


def driver_jobs_cancelled(*, driver: Driver, now: datetime | None = None) -> list[Booking]:
    """Jobs cancelled while this driver held them or had them on offer, for
    ``conf.driver_cancelled_shown_hours`` after the cancellation, latest first: the app
    shows them as cancelled instead of letting them vanish (issue 34)."""
    now = now or timezone.now()
    since = now - timedelta(hours=conf.driver_cancelled_shown_hours())
    withdrawn = Offer.objects.filter(
        booking=OuterRef("pk"),
        driver=driver,
        status=OfferStatus.WITHDRAWN,
        responded_at__gte=since,
    )
    return list(
        Booking.objects.filter(status=BookingStatus.CANCELLED, updated_at__gte=since)
        .filter(Q(driver=driver) | Q(Exists(withdrawn)))
        .order_by("-updated_at", "-pk")[:20]
    )


@dataclass
class DriverFeed:
    driver: Driver
    results: list[FeedItem]
    cancelled: list[Booking]


def driver_app_feed(*, driver: Driver) -> DriverFeed:
    """What the driver app polls (contract 6 ``GET /jobs``): offers and jobs in hand, and
    the jobs cancelled under the driver lately."""
    return DriverFeed(
        driver=driver,
        results=driver_jobs_feed(driver=driver),
        cancelled=driver_jobs_cancelled(driver=driver),
    )


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
