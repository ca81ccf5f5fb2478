"""The retention schedule: the one home of how long each kind of personal record is kept.

For each kind of record: what it holds, why, on what lawful basis (UK GDPR article 6),
how long it is kept and what happens at its end. The periods are settings
(``PRIVACY_*``, config/settings/domains/privacy.py) or come from the authority where the law sets
them: a booking is kept for its pickup licensing authority's record-keeping period
(``privacy/data/booking_record_periods.json``, each with its source), invoices for HMRC's
six years. The privacy notice (``/privacy/``), the admin and the retention job
(``privacy.services.retention``) read this module; nothing restates it.
"""

from __future__ import annotations

import datetime as dt
import json
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from dateutil.relativedelta import relativedelta
from django.conf import settings

PERIODS_FILE = Path(__file__).resolve().parent / "data" / "booking_record_periods.json"


@dataclass(frozen=True, slots=True)
class Retention:
    key: str
    record: str
    holds: str  # the personal data in it
    purpose: str
    lawful_basis: str
    kept: str  # the period, in words
    at_the_end: str
    delta: relativedelta | None  # None: per authority (bookings) or not applied by the job


@dataclass(frozen=True, slots=True)
class AuthorityPeriod:
    authority: str
    months: int
    source_url: str
    publisher: str


@lru_cache(maxsize=1)
def authority_periods() -> dict[str, AuthorityPeriod]:
    """Each district (GSS code) whose authority's record-keeping period is known."""
    data = json.loads(PERIODS_FILE.read_text())
    periods = {}
    for row in data["authorities"]:
        period = AuthorityPeriod(
            row["authority"], int(row["months"]), row["source"]["url"], row["source"]["publisher"]
        )
        for code in row["areas_gss"]:
            periods[code] = period
    return periods


def booking_record_months(district_code: str | None) -> int:
    """How many months a booking picked up in ``district_code`` is kept whole."""
    known = authority_periods().get(district_code or "")
    return known.months if known else settings.PRIVACY_BOOKING_RECORD_DEFAULT_MONTHS


def booking_kept_until(pickup_time: dt.datetime, district_code: str | None) -> dt.datetime:
    return pickup_time + relativedelta(months=booking_record_months(district_code))


def _days(count: int) -> str:
    return f"{count} day{'s' if count != 1 else ''}"


def retention_schedule() -> list[Retention]:
    s = settings
    longest = max(
        [s.PRIVACY_BOOKING_RECORD_DEFAULT_MONTHS, *(p.months for p in authority_periods().values())]
    )
    return [
        Retention(
            "bookings",
            "Bookings",
            "the passenger's name, phone and email, the journey, notes and flight number, "
            "and the support requests a partner raised on it",
            "to carry out the journey, and the booking record a licensing authority requires "
            "a private hire operator to keep",
            "contract (the journey) and legal obligation (the authority's record-keeping rules)",
            f"from the pickup, the pickup authority's record-keeping period where we know it "
            f"(up to {longest} months), otherwise {s.PRIVACY_BOOKING_RECORD_DEFAULT_MONTHS} "
            "months",
            "minimised: the statutory fields stay (reference, times, places, fare, driver, "
            "vehicle, licensing authority); the passenger's name, phone, email, notes and "
            "flight number are removed, and the partners' support requests on it deleted",
            None,
        ),
        Retention(
            "passengers",
            "Passenger accounts without a confirmed email",
            "email, name, phone",
            "to confirm an email before it books",
            "legitimate interests (stopping bookings in other people's names)",
            f"{_days(s.PRIVACY_UNCONFIRMED_PASSENGER_DAYS)} after creation, when no booking "
            "of theirs is kept and they are not blocked",
            "deleted",
            relativedelta(days=s.PRIVACY_UNCONFIRMED_PASSENGER_DAYS),
        ),
        Retention(
            "position_trails",
            "Drivers' position trails",
            "where a driver was, every few seconds, while holding a job",
            "evidence of arrival, no-shows and dead mileage",
            "legitimate interests (settling disputes over a journey)",
            f"{_days(s.PRIVACY_POSITION_TRAIL_DAYS)} after the fix, unless the job is held",
            "deleted",
            relativedelta(days=s.PRIVACY_POSITION_TRAIL_DAYS),
        ),
        Retention(
            "messages",
            "Job cards and SMS and WhatsApp logs",
            "the driver's phone number and the job card's text (places, times, fare)",
            "to offer jobs to drivers and to bill the pass-through message charges",
            "contract (the driver's subscription)",
            f"{_days(s.PRIVACY_MESSAGE_LOG_DAYS)} after sending",
            "minimised: the number and the text are removed; the count and cost stay for billing",
            relativedelta(days=s.PRIVACY_MESSAGE_LOG_DAYS),
        ),
        Retention(
            "email_codes",
            "Email confirmation links and sign-in codes",
            "the email address (codes are stored hashed)",
            "to prove that a person holds an email address",
            "legitimate interests (security)",
            f"{_days(s.PRIVACY_EMAIL_CODE_DAYS)} after creation",
            "deleted",
            relativedelta(days=s.PRIVACY_EMAIL_CODE_DAYS),
        ),
        Retention(
            "webhook_deliveries",
            "Webhook deliveries to partners, with their bodies",
            "what a partner's booking needs: the journey, and for a fleet holding the job, "
            "the passenger's name and phone",
            "to tell the partner who sent a booking what happened to it",
            "contract (with the partner) and legitimate interests",
            f"{_days(s.PRIVACY_WEBHOOK_DELIVERY_DAYS)} after creation, once delivered or given up",
            "deleted with their attempts",
            relativedelta(days=s.PRIVACY_WEBHOOK_DELIVERY_DAYS),
        ),
        Retention(
            "oauth",
            "AI assistants' access (OAuth grants and tokens)",
            "which passenger let which assistant act, and when",
            "to let an assistant act for a passenger who allowed it",
            "consent (given on the consent page)",
            f"until expired, then {_days(s.PRIVACY_OAUTH_EXPIRED_DAYS)}",
            "deleted",
            relativedelta(days=s.PRIVACY_OAUTH_EXPIRED_DAYS),
        ),
        Retention(
            "screening",
            "Requests refused by the content screen",
            "an excerpt of the refused text and who sent it",
            "to review and improve the screen against abuse",
            "legitimate interests (security)",
            f"{_days(s.PRIVACY_SCREENING_DAYS)}",
            "deleted",
            relativedelta(days=s.PRIVACY_SCREENING_DAYS),
        ),
        Retention(
            "staff_views",
            "The record of staff looking at personal data",
            "which staff member looked at which booking, passenger or driver, and when",
            "accountability for access to personal data",
            "legal obligation (UK GDPR article 5(2), accountability)",
            f"{_days(s.PRIVACY_STAFF_VIEW_DAYS)}",
            "deleted",
            relativedelta(days=s.PRIVACY_STAFF_VIEW_DAYS),
        ),
        Retention(
            "data_requests",
            "Requests for a copy or erasure of data",
            "the email or driver that asked, and what was done",
            "to show that each request was answered",
            "legal obligation (UK GDPR articles 12, 15 and 17)",
            f"{_days(s.PRIVACY_DATA_REQUEST_DAYS)} after the request",
            "deleted",
            relativedelta(days=s.PRIVACY_DATA_REQUEST_DAYS),
        ),
        Retention(
            "rejected_tables",
            "Fare tables sent in by drivers and operators that staff rejected",
            "the sender's name and login and the photo of the table (stored without its "
            "camera data); an approved table's stay as the source of a table in force",
            "to check a table against its photo before it prices journeys, and to answer "
            "the sender",
            "legitimate interests (fares on the councils' own tables)",
            f"{_days(s.PRIVACY_REJECTED_TABLE_DAYS)} after the rejection",
            "deleted with its photo",
            relativedelta(days=s.PRIVACY_REJECTED_TABLE_DAYS),
        ),
        Retention(
            "invoices",
            "Drivers' invoices and credit notes",
            "the driver's name and the week's earnings and fees",
            "accounting",
            "legal obligation (HMRC: records kept for 6 years)",
            f"{s.PRIVACY_INVOICE_YEARS} years from the end of the week invoiced",
            "invoices are immutable: the job lists those past their period for staff to "
            "delete with the accounting records",
            None,
        ),
        Retention(
            "payment_methods",
            "Drivers' ways to pay their subscription (billing, issue 36)",
            "the card's brand and last four digits, or the bank sort code, the account's "
            "last four digits and the Direct Debit mandate reference, and Stripe's ids; "
            "Stripe holds the card and account numbers, never this service",
            "to charge the weekly subscription",
            "contract (the driver's subscription)",
            "while the driver's account exists; a card or mandate the driver removes is "
            "marked inactive and no longer charged",
            "deleted with the driver's account (Stripe keeps its own records as the "
            "payment provider)",
            None,
        ),
        Retention(
            "request_logs",
            "Server logs",
            "addresses and the request id (never a phone in clear, a secret or card data)",
            "to run the service and investigate faults and abuse",
            "legitimate interests (security and operation)",
            f"{_days(s.PRIVACY_LOG_DAYS)}, set in the log platform that receives them",
            "deleted by the log platform",
            None,
        ),
    ]


def retention(key: str) -> Retention:
    return next(item for item in retention_schedule() if item.key == key)


def request_deadline(received: dt.datetime) -> dt.datetime:
    """A request is answered within one month of receipt (UK GDPR article 12(3))."""
    return received + relativedelta(months=settings.PRIVACY_REQUEST_ANSWER_MONTHS)
