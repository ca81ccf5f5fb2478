"""Who may book and with what: the rules every door of the booking engine applies.

Each rule lives here once and takes plain values (an account, an email, a time), never a
request, so the API views, the website, the MCP tools and partner intake share it:

- pickup time: not in the past beyond one tolerance, not beyond the booking horizon;
- who may book (``can_book``, paused) and who may price (``may_set_fare``; contract 3);
- passenger email (genuine: not disposable, not a role address) and phone (a valid number,
  a mobile on the current form);
- blocked passengers, and the per-email limits (seed 7, 8; contract 1.4);
- the quote limits: the API's per caller, the website's per browser session and address;
- when a booking's dispatch window opens (``dispatch_window_opens_at``; issue 15).
- the flight number's format (issue 15: an airport pickup follows its flight).
"""

from __future__ import annotations

import datetime as dt
import re
from decimal import Decimal

from django.conf import settings
from django.utils import timezone

from bookings.models import BookingSource, Passenger
from bookings.passengers import email_assess, phone_assess
from core.callers import Caller
from core.errors import DomainError, field_error
from core.money import gbp
from guards.email_keys import email_limit_key
from guards.ratelimits import limit_enforce

# Sender kinds that may price their own jobs (seed 2.10: partners send priced jobs).
FARE_SETTING_KINDS = frozenset({"partner", "operator", "supplier"})
FARE_MIN_EXCLUSIVE = Decimal("0")
FARE_MAX = Decimal("99999.99")

# An airline designator (IATA: two characters, not both digits, "BA", "U2", "9W"; or ICAO:
# three letters, "EZY"), then 1-4 digits and an optional operational suffix letter.
FLIGHT_NUMBER = re.compile(r"(?:[A-Z]{3}|[A-Z]{2}|[A-Z][0-9]|[0-9][A-Z])[0-9]{1,4}[A-Z]?")
_FLIGHT_SEPARATORS = re.compile(r"[\s\-]+")


def pickup_require_future(pickup_time: dt.datetime, *, field: str) -> dt.datetime:
    """The pickup time, when it is bookable: not further in the past than
    ``PICKUP_PAST_TOLERANCE_SECONDS`` (clock skew, a slow network; 400 ``pickup_in_past``)
    and not further ahead than ``BOOKING_HORIZON_DAYS`` (400 ``invalid_input``).

    One rule for quotes, bookings and partner intake: a time that can be quoted can be
    booked. A naive time is read as UTC (contract 1) and returned aware. Errors name
    ``field`` as the caller wrote it.
    """
    if timezone.is_naive(pickup_time):
        pickup_time = pickup_time.replace(tzinfo=dt.UTC)  # contract 1: no offset means UTC
    now = timezone.now()
    if pickup_time < now - dt.timedelta(seconds=settings.PICKUP_PAST_TOLERANCE_SECONDS):
        raise field_error(
            "pickup_in_past",
            field,
            "The pickup time is in the past.",
            "The pickup time is in the past.",
        )
    if pickup_time > now + dt.timedelta(days=settings.BOOKING_HORIZON_DAYS):
        raise field_error(
            "invalid_input",
            field,
            f"Must be within {settings.BOOKING_HORIZON_DAYS} days from now.",
            "The pickup time is too far ahead.",
        )
    return pickup_time


def quote_pickup_time(*, depart_at: dt.datetime, asap: bool, field: str) -> dt.datetime:
    """The pickup time a redeemed quote books (contract 3): an "as soon as possible" quote
    takes the time of booking; any other keeps its time, which must still be bookable
    (:func:`pickup_require_future`: 400 ``pickup_in_past`` once it has passed), on every
    door that redeems quotes."""
    if asap:
        return timezone.now()
    return pickup_require_future(depart_at, field=field)


def flight_number_normalise(raw: str | None, *, field: str) -> str:
    """The flight number in its canonical form (``"u2 123"`` -> ``"U2123"``), or ``""``
    when none was given; 400 ``invalid_input`` naming ``field`` when it is not an airline
    code (IATA or ICAO) followed by 1-4 digits and an optional letter.

    One rule for every door that takes a flight number (v1 and alias bookings, the website,
    partner, operator and supplier intake, the MCP ``start_booking`` tool), so a flight the
    status backend cannot look up is refused when it is booked, not on the day.
    """
    if not raw or not raw.strip():
        return ""
    number = _FLIGHT_SEPARATORS.sub("", raw.strip().upper())
    if not FLIGHT_NUMBER.fullmatch(number):
        raise field_error(
            "invalid_input",
            field,
            "Enter a flight number: the airline code and 1-4 digits, e.g. BA1234 or EZY12.",
        )
    return number


def account_require_can_book(account) -> None:
    """403 ``partner_not_allowed`` for an account the back office stopped or paused."""
    if account is not None and (not account.can_book or account.paused):
        raise DomainError(
            "partner_not_allowed", f"Account {account.slug} is not allowed to make bookings."
        )


def account_may_set_fare(account) -> bool:
    """Partners, operators and suppliers price their own jobs unless the back office
    withdrew the permission; agents and anonymous callers never do (contract 3)."""
    return (
        account is not None
        and account.kind in FARE_SETTING_KINDS
        and getattr(account, "may_set_fare", True)
    )


def fare_require_allowed(
    account, fare: Decimal | None, *, field: str = "fareGBP"
) -> Decimal | None:
    """The caller-supplied fare, 2 dp, when this account may set one; None when none was sent.

    403 ``fare_not_allowed`` from an agent, an anonymous caller or an account whose
    permission was withdrawn: a fare is never silently applied nor silently ignored. 400
    ``invalid_input`` unless 0 < fare <= 99999.99. For the v1 booking form and partner,
    operator and supplier intake alike (contract 3, 4).
    """
    if fare is None:
        return None
    if not account_may_set_fare(account):
        who = f"Account {account.slug}" if account is not None else "An anonymous caller"
        raise DomainError(
            "fare_not_allowed",
            f"{who} may not set its own fare; leave {field} out to be priced on the tariffs.",
            errors={field: ["This caller may not set the fare."]},
        )
    fare = Decimal(fare)
    if not fare.is_finite() or not FARE_MIN_EXCLUSIVE < fare <= FARE_MAX:
        raise field_error("invalid_input", field, f"Must be more than 0 and at most {FARE_MAX}.")
    return gbp(fare)


def email_require_valid(email: str, *, field: str) -> str:
    """The normalised address (domain lower-cased); 400 ``invalid_input`` for bad syntax."""
    verdict = email_assess(email)
    if not verdict.valid:
        raise field_error("invalid_input", field, "Enter a valid email address.")
    return verdict.email


def email_require_genuine(email: str, *, field: str) -> str:
    """The normalised address; 400 ``email_rejected`` for disposable or role addresses."""
    verdict = email_assess(email)
    if not verdict.valid:
        raise field_error("invalid_input", field, "Enter a valid email address.")
    if verdict.disposable or verdict.role:
        why = "a disposable address" if verdict.disposable else "a role address"
        raise DomainError(
            "email_rejected",
            f"{verdict.email} is {why}; bookings need the passenger's own reachable email.",
            errors={field: [f"This is {why}."]},
        )
    return verdict.email


def phone_require_valid(raw: str, *, field: str, mobile: bool = False) -> str:
    """The number in E.164; 400 ``invalid_input`` when it is not a valid number for its
    region, or (``mobile``) not a mobile, which the current form needs (contract 3)."""
    verdict = phone_assess(raw)
    if verdict is None:
        raise field_error(
            "invalid_input", field, "Enter a valid phone number in international format."
        )
    if mobile and not verdict.mobile:
        raise field_error("invalid_input", field, "Enter a mobile number (texts reach it).")
    return verdict.e164


def passenger_require_not_blocked(email: str) -> Passenger | None:
    """The passenger record of ``email`` (None when unknown); 403 ``passenger_blocked``."""
    if not email:
        return None
    passenger = Passenger.objects.filter(email=email.lower()).first()
    if passenger is not None and passenger.blocked:
        raise DomainError("passenger_blocked", "This passenger account is blocked from booking.")
    return passenger


def quote_limits_enforce(caller: Caller, scope: str) -> None:
    """Count one quote: under ``scope`` per caller (contract 1.4) for the API, the alias
    and agents; for the website per browser session and, separately, per address
    (``quote_website_session``, ``quote_website_address``), so the website's passengers
    sharing an address neither spend the API's allowance nor each other's."""
    if caller.source != BookingSource.WEBSITE:
        limit_enforce(caller, scope)
        return
    if caller.session:
        limit_enforce(caller, "quote_website_session", value=f"session:{caller.session}")
    limit_enforce(caller, "quote_website_address", value=f"ip:{caller.ip or 'unknown'}")


def email_limits_enforce(
    caller: Caller, *, email: str, passenger: Passenger | None, unconfirmed: bool
) -> None:
    """Too many bookings for one email (seed 7), and, with ``unconfirmed``, 8 price checks
    an hour while the address is unconfirmed (seed 8, the current booking flow).

    Counted per (address, caller): one caller cannot flood an address, and nobody else's
    requests, failed or not, can use up the passenger's own allowance (a victim's email
    cannot be locked out from another IP or key). The caller's own booking limit bounds
    how many addresses it can try.
    """
    if not email:
        return
    counted = f"email:{email_limit_key(email)}|{caller.limit_key}"
    limit_enforce(
        caller,
        "booking_per_email",
        value=counted,
        rate=settings.RATELIMITS["booking_per_email"],
        code="email_limit",
        detail="Too many bookings for this email address; try again later.",
    )
    if unconfirmed and (passenger is None or passenger.email_verified_at is None):
        limit_enforce(
            caller,
            "unconfirmed_email",
            value=counted,
            rate=settings.RATELIMITS["unconfirmed_email"],
            code="email_limit",
            detail="Confirm this email address (see passenger-verify) to make more requests.",
        )


def dispatch_window_closes_at(*, pickup_time: dt.datetime) -> dt.datetime:
    """When dispatch stops offering a booking without a driver by itself (issue 34):
    ``DISPATCH_GIVE_UP_AFTER_PICKUP_MINUTES`` after its pickup time (a passenger may still
    be waiting at the kerb). After it, the passenger and the sender are told and the
    booking waits for a human."""
    return pickup_time + dt.timedelta(minutes=settings.DISPATCH_GIVE_UP_AFTER_PICKUP_MINUTES)


def dispatch_window_opens_at(
    *, pickup_time: dt.datetime, duration_minutes: int | None
) -> dt.datetime:
    """When dispatch starts looking for a driver: ``DISPATCH_LEAD_MINUTES`` before the
    pickup, plus ``DISPATCH_LEAD_JOURNEY_FACTOR`` times the journey's own minutes (long
    journeys go to national drivers, who need time to reposition), capped at
    ``DISPATCH_LEAD_MAX_MINUTES``. A pickup sooner than that opens at once (the moment is
    then in the past, and the dispatcher takes the booking on its next pass)."""
    journey = max(0, duration_minutes or 0)
    lead = settings.DISPATCH_LEAD_MINUTES + settings.DISPATCH_LEAD_JOURNEY_FACTOR * journey
    lead = min(float(settings.DISPATCH_LEAD_MAX_MINUTES), lead)
    return pickup_time - dt.timedelta(minutes=lead)
