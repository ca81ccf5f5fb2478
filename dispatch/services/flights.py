"""Airport pickups follow their flight (issue 15).

A flight that lands 50 minutes late must not leave the driver waiting 50 minutes on the
kerb, with the passenger's free waiting used up before they are through passport
control. Every report of a flight's arrival (the provider's poll, a partner or operator
over the API, the back office) goes through :func:`flight_update_apply`, which moves the
pickup to the landing plus the airport's collection allowance (``dispatch.airports``),
appends ``booking.amended`` to the booking's event log, and tells the driver (SMS) and
the passenger (email) when the pickup moved. The free waiting at an airport is counted
from the landing recorded here (``dispatch.services.waiting``).

Lock order: the booking row, then its FlightArrival row (as every booking service).
"""

from __future__ import annotations

import datetime as dt
import logging
from dataclasses import dataclass

from django.conf import settings
from django.core.mail import send_mail
from django.db import transaction
from django.utils import timezone

from billing.services.usage import sms_usage_record
from bookings import policies
from bookings.locks import booking_lock
from bookings.models import Booking, FlightArrival, FlightStatus
from bookings.services import booking_amend
from bookings.transitions import AWAITING_PICKUP
from core.errors import DomainError, field_error
from core.localtime import local_datetime, local_time_format
from core.mail import privacy_line
from core.task_queue import task_enqueue_on_commit
from dispatch.airports import PickupAirport, airport_for_booking
from dispatch.flight_status import (
    FlightReport,
    FlightStatusUnavailable,
    flight_provider_configured,
    flight_status_fetch,
)
from dispatch.models import (
    NOTIFICATION_COST_GBP,
    NotificationChannel,
    NotificationKind,
    NotificationLog,
)
from dispatch.models import NotificationStatus as Sent
from dispatch.notifications import job_card_backend

logger = logging.getLogger(__name__)

# A flight that neither lands nor is expected leaves the pickup where it is.
NOT_LANDING = frozenset({FlightStatus.CANCELLED, FlightStatus.DIVERTED})
# A landing further than this from the booked pickup is another day's flight (a wrong
# date), not a delay: refused rather than moving the pickup by days.
MAX_LANDING_SHIFT = dt.timedelta(hours=48)


@dataclass(frozen=True)
class FlightUpdate:
    """What one report did to one booking."""

    booking: Booking
    arrival: FlightArrival
    previous_pickup_time: dt.datetime
    changed: bool  # anything new was recorded (a repeat changes nothing)

    @property
    def moved(self) -> bool:
        return self.booking.pickup_time != self.previous_pickup_time


def flight_landing(report: FlightReport) -> dt.datetime | None:
    """When the flight lands, as best known: actual, else estimated, else scheduled."""
    return report.actual_arrival or report.estimated_arrival or report.scheduled_arrival


def flight_update_apply(*, booking: Booking, report: FlightReport, actor: str) -> FlightUpdate:
    """Record a flight report on an airport pickup and move the pickup to follow it.

    Guarantees: the pickup becomes landing + the airport's collection allowance (a
    cancelled or diverted flight records its status and moves nothing; a landing more
    than 48 hours from the booked pickup is 400 ``invalid_input``); the booked
    pickup time is kept, so every move is measured from it; a report that changes
    nothing is a no-op (no event, no message); a change appends ``booking.amended``
    (detail ``flight``) under the booking's row lock; the driver and the passenger are
    told after commit when the pickup moved. Refused: 422 ``not_airport_pickup`` when
    the pickup is not at a UK airport, 409 ``flight_update_closed`` once the passenger
    is on board (or the booking ended), 400 ``invalid_input`` for another flight.
    """
    airport = airport_for_booking(booking)
    if airport is None:
        raise DomainError(
            "not_airport_pickup",
            f"Booking {booking.reference} is not picked up at an airport; "
            "flight updates apply to airport pickups only.",
        )
    number = policies.flight_number_normalise(report.flight_number, field="flightNumber")
    if booking.flight_number and number and number != booking.flight_number.upper():
        raise field_error(
            "invalid_input",
            "flightNumber",
            f"Booking {booking.reference} meets flight {booking.flight_number}, not {number}.",
        )
    with transaction.atomic():
        locked = booking_lock(pk=booking.pk)
        if locked is None:
            raise DomainError("booking_not_found", f"No booking {booking.reference}.")
        booking = locked
        if booking.status not in AWAITING_PICKUP:
            raise DomainError(
                "flight_update_closed",
                f"Booking {booking.reference} is {booking.status}: flight updates move the "
                "pickup only until the passenger is on board.",
            )
        return _record(booking, airport, report, number or booking.flight_number, actor)


def _record(booking, airport: PickupAirport, report, number, actor) -> FlightUpdate:
    arrival = FlightArrival.objects.filter(booking=booking).first()
    previous = booking.pickup_time
    landing = flight_landing(report)
    booked = arrival.booked_pickup_time if arrival else previous
    if landing is not None and abs(landing - booked) > MAX_LANDING_SHIFT:
        field = "actualArrival" if report.actual_arrival else "estimatedArrival"
        raise field_error(
            "invalid_input",
            field,
            f"More than {MAX_LANDING_SHIFT.total_seconds() / 3600:.0f} hours from the booked "
            f"pickup of {booking.reference}: is this the flight of another day?",
        )
    pickup_time = previous
    if landing is not None and report.status not in NOT_LANDING:
        pickup_time = landing + airport.collection_allowance(origin_country=report.origin_country)
    state = {
        "flight_number": number,
        "airport": airport.iata,
        "status": report.status,
        "scheduled_arrival": report.scheduled_arrival
        or (arrival.scheduled_arrival if arrival else None),
        "landing_at": landing or (arrival.landing_at if arrival else None),
        "landed": report.actual_arrival is not None,
        "terminal": report.terminal or (arrival.terminal if arrival else ""),
    }
    if (
        arrival is not None
        and all(getattr(arrival, name) == value for name, value in state.items())
        and pickup_time == previous
    ):
        return FlightUpdate(booking, arrival, previous, changed=False)
    arrival, _ = FlightArrival.objects.update_or_create(
        booking=booking,
        defaults={
            **state,
            "booked_pickup_time": booked,
            "source": actor[:100],
            "updated_at": timezone.now(),
        },
    )
    changes = {"pickup_time": pickup_time} if pickup_time != previous else {}
    if number != booking.flight_number:
        changes["flight_number"] = number
    booking = booking_amend(
        booking=booking, actor=actor, changes=changes, detail={"flight": _detail(arrival, previous)}
    )
    update = FlightUpdate(booking, arrival, previous, changed=True)
    if update.moved:
        # By name: dispatch.tasks imports this module.
        task_enqueue_on_commit("dispatch.tasks.pickup_moved_notify", booking.pk)
    return update


def _detail(arrival: FlightArrival, previous: dt.datetime) -> dict:
    def iso(moment):
        return moment.isoformat() if moment else None

    return {
        "flightNumber": arrival.flight_number,
        "airport": arrival.airport,
        "status": arrival.status,
        "landingAt": iso(arrival.landing_at),
        "landed": arrival.landed,
        "terminal": arrival.terminal,
        "previousPickupTime": iso(previous),
        "pickupTime": iso(arrival.booking.pickup_time),
        "bookedPickupTime": iso(arrival.booked_pickup_time),
    }


# --- telling the driver and the passenger ----------------------------------------------


def pickup_moved_message(booking: Booking) -> str:
    arrival = FlightArrival.objects.filter(booking=booking).first()
    flight = f"Flight {arrival.flight_number} " if arrival else "The flight "
    landing = ""
    if arrival and arrival.landing_at:
        verb = "landed" if arrival.landed else "is expected to land"
        landing = f"{verb} at {local_time_format(arrival.landing_at, 'time')}"
    terminal = f", terminal {arrival.terminal}" if arrival and arrival.terminal else ""
    return (
        f"Booking {booking.reference}: {flight}{landing}{terminal}. "
        f"Pickup moved to {local_time_format(booking.pickup_time, 'short')} (UK time) "
        f"at {booking.pickup}."
    )


def pickup_moved_notify(*, booking_id: int) -> None:
    """Tell the assigned driver (SMS, recorded and passed through like job cards, seed
    8.5) and the passenger (email) the pickup's current time. Sent after the move
    committed; a driver not yet assigned learns it from the job card."""
    booking = Booking.objects.select_related("driver").filter(pk=booking_id).first()
    if booking is None or booking.status not in AWAITING_PICKUP:
        return
    body = pickup_moved_message(booking)
    if booking.driver is not None and booking.driver.phone:
        _driver_sms(booking, body)
    if booking.passenger_email:
        send_mail(
            f"Your pickup time changed: {booking.reference}",
            body + "\nYour free waiting time starts when the flight lands.\n" + privacy_line(),
            None,
            [booking.passenger_email],
            fail_silently=True,
        )


def _driver_sms(booking: Booking, body: str) -> None:
    log = NotificationLog.objects.create(
        booking=booking,
        driver=booking.driver,
        channel=NotificationChannel.SMS,
        kind=NotificationKind.PICKUP_MOVED,
        to=booking.driver.phone,
        body=body,
        status=Sent.SENDING,
        attempts=1,
    )
    try:
        sid = job_card_backend().send(channel=NotificationChannel.SMS, to=log.to, body=body)
    except Exception as exc:
        # The passenger's email still goes; the driver sees the time in the app.
        logger.warning("Pickup-moved SMS for %s failed: %s", booking.reference, exc)
        NotificationLog.objects.filter(pk=log.pk).update(status=Sent.FAILED, error=str(exc)[:300])
        return
    NotificationLog.objects.filter(pk=log.pk).update(
        status=Sent.SENT,
        provider_sid=sid[:64],
        cost_gbp=NOTIFICATION_COST_GBP[NotificationChannel.SMS],
        sent_at=timezone.now(),
    )
    sms_usage_record(
        driver_id=booking.driver_id, occurred_at=log.created_at, reference=f"pickup-moved:{log.pk}"
    )


# --- the provider's poll ---------------------------------------------------------------


def flights_poll(*, now: dt.datetime | None = None) -> int:
    """Ask the flight status provider about every airport pickup due within
    ``FLIGHT_POLL_AHEAD_HOURS`` whose flight has not landed; apply what it says.

    Returns how many bookings changed. Does nothing without a configured provider (then
    partners, operators and the back office report flights). A provider failure skips
    that flight until the next poll.
    """
    if not flight_provider_configured():
        return 0
    now = now or timezone.now()
    due = (
        Booking.objects.filter(
            status__in=AWAITING_PICKUP,
            pickup_time__gte=now - dt.timedelta(hours=3),
            pickup_time__lte=now + dt.timedelta(hours=settings.FLIGHT_POLL_AHEAD_HOURS),
        )
        .exclude(flight_number="")
        .exclude(flight_arrival__landed=True)
        .select_related("flight_arrival")
        .order_by("pickup_time")
    )
    changed = 0
    for booking in due:
        airport = airport_for_booking(booking)
        if airport is None:
            continue
        arrival = getattr(booking, "flight_arrival", None)
        booked = arrival.booked_pickup_time if arrival else booking.pickup_time
        try:
            report = flight_status_fetch(
                flight_number=booking.flight_number,
                arrival_date=local_datetime(booked).date(),
                airport=airport.iata,
            )
            if report is not None:
                update = flight_update_apply(booking=booking, report=report, actor="flights:poll")
                changed += update.changed
        except (FlightStatusUnavailable, DomainError) as exc:
            logger.warning("Flight %s of %s: %s", booking.flight_number, booking.reference, exc)
    return changed
