"""Who may book: passenger email rules, blocked passengers, partner permission and the
per-email limits of the current booking flow (seed 4 rule 3, 7, 8; contract 3)."""

from __future__ import annotations

from django.conf import settings

from api.ratelimits import ratelimit_enforce
from bookings.models import Passenger
from bookings.passengers import email_assess
from core.errors import DomainError


def email_require_genuine(email: str, *, field: str) -> str:
    """The normalised address; 400 ``email_rejected`` for disposable or role addresses."""
    verdict = email_assess(email)
    if not verdict.valid:
        raise DomainError(
            "invalid_input",
            "Enter a valid email address.",
            errors={field: ["Enter a valid email address."]},
        )
    if verdict.disposable or verdict.role:
        why = "a disposable address" if verdict.disposable else "a role address"
        raise DomainError(
            "email_rejected",
            f"{verdict.email} is {why}; bookings need the passenger's own reachable email.",
            errors={field: [f"This is {why}."]},
        )
    return verdict.email


def passenger_require_not_blocked(email: str) -> Passenger | None:
    if not email:
        return None
    passenger = Passenger.objects.filter(email=email.lower()).first()
    if passenger is not None and passenger.blocked:
        raise DomainError("passenger_blocked", "This passenger account is blocked from booking.")
    return passenger


def account_require_can_book(request) -> None:
    account = getattr(request, "account", None)
    if account is not None and (not account.can_book or account.paused):
        raise DomainError(
            "partner_not_allowed", f"Account {account.slug} is not allowed to make bookings."
        )


def email_limits_enforce(request, *, email: str, passenger: Passenger | None) -> None:
    """Too many bookings from one email, and 8 price checks an hour while unconfirmed."""
    if not email:
        return
    ratelimit_enforce(
        request,
        "booking_per_email",
        value=f"email:{email.lower()}",
        rate=settings.RATELIMITS["booking_per_email"],
        code="email_limit",
        detail="Too many bookings for this email address; try again later.",
    )
    if passenger is None or passenger.email_verified_at is None:
        ratelimit_enforce(
            request,
            "unconfirmed_email",
            value=f"email:{email.lower()}",
            rate=settings.RATELIMITS["unconfirmed_email"],
            code="email_limit",
            detail="Confirm this email address (see passenger-verify) to make more requests.",
        )
