"""What the passenger pages say for each refusal of a use case: one table, one function.

The API answers with a problem's ``code`` and ``detail`` (for programs); a person on the
website reads the sentence below instead. A code missing here falls back to the
service's own ``detail``, so a new code is never shown as a bare identifier.
"""

from __future__ import annotations

from datetime import timedelta

from django.utils import timezone

from core.errors import DomainError, LimitReached
from core.localtime import local_time_format
from pricing.geocoding import streets_supported

PASSENGER_MESSAGES: dict[str, str] = {
    # Only what the default set-up can place is suggested (contract 2.1.1).
    "address_not_found": (
        "We could not find that address. Try a postcode, a station, an airport, "
        "a landmark or a town."
    ),
    "address_not_precise": (
        "We could not place that address precisely enough for a driver to find you. "
        "Add the postcode, or give a nearby station or landmark."
    ),
    "outside_service_area": "We only carry passengers within the United Kingdom.",
    "vehicle_too_small": (
        "That vehicle does not seat your party. Choose a larger vehicle, or leave "
        "the vehicle on \u201cthe smallest that seats us\u201d."
    ),
    "pickup_in_past": "The pickup time has already passed. Choose a time in the future.",
    "quote_expired": "This quote has expired. Get a new quote; prices are fixed for 24 hours.",
    "quote_not_found": "We could not find this quote. Get a new quote.",
    "quote_already_redeemed": (
        "This quote has already been booked. Check your email for the booking, or get a new quote."
    ),
    "email_rejected": (
        "We cannot accept that email address. Use a personal address you read, "
        "not a disposable or shared one: we send your booking confirmation there."
    ),
    "passenger_blocked": (
        "We cannot take bookings for this passenger online. Please contact us by phone."
    ),
    "email_limit": (
        "Too many bookings for this email address in a short time. Confirm your email "
        "address from the message we sent, or try again later."
    ),
    "rate_limited": "Too many requests from your connection.",
    "content_rejected": (
        "Part of what you typed was not accepted. Please remove links or unusual text "
        "and try again."
    ),
    "invalid_input": "Please check the highlighted fields.",
    "not_cancellable": (
        "This booking can no longer be cancelled: the passenger is on board or the journey is over."
    ),
    "tariff_incomplete": (
        "We cannot price this journey online yet. Please try another pickup time or contact us."
    ),
    "service_unavailable": "The service is busy. Please try again in a minute.",
}


# With a street engine configured (pricing.geocoding.streets_supported) a street address
# can be placed, and only then is one suggested (contract 2.1.1).
STREET_ENGINE_MESSAGES: dict[str, str] = {
    "address_not_found": (
        "We could not find that address. Check the street and town, or try a "
        "postcode, a station, an airport or a landmark."
    ),
}


def passenger_message(error: DomainError) -> str:
    """The sentence a passenger reads for ``error``; a limit says when to try again, with
    the wait the server gives (the API's Retry-After), never a guess."""
    message = (streets_supported() and STREET_ENGINE_MESSAGES.get(error.code)) or (
        PASSENGER_MESSAGES.get(error.code)
    )
    message = message or error.detail or "Something went wrong."
    if isinstance(error, LimitReached):
        message = f"{message} {try_again_words(error.retry_after)}"
    return message


def try_again_words(retry_after: int) -> str:
    """ "You can try again in 23 minutes (at 09:45 UK time)." from a wait in seconds."""
    at = timezone.now() + timedelta(seconds=retry_after)
    if retry_after < 90:
        wait = f"{retry_after} seconds"
    elif retry_after < 2 * 3600:
        wait = f"{round(retry_after / 60)} minutes"
    else:
        wait = f"{round(retry_after / 3600)} hours"
    return f"You can try again in {wait} (at {local_time_format(at, 'time')} UK time)."


# Codes whose per-field words speak to API clients ("set worldwide to true",
# "'<street>, <town>'"): beside the field a passenger reads the sentence above instead.
FIELD_WORDS_FOR_PROGRAMS = frozenset(
    {"address_not_found", "address_not_precise", "outside_service_area"}
)


def passenger_field_messages(error: DomainError, names: dict[str, str]) -> dict[str, list[str]]:
    """What to say beside each field the error names, keyed by the form's field names;
    ``names`` maps the names the use case gave (v1 camelCase) to the form's. The service's
    own words (such as "This is a role address.") unless they were written for programs."""
    named = {names[k]: list(v) for k, v in (error.errors or {}).items() if k in names}
    if error.code in FIELD_WORDS_FOR_PROGRAMS:
        return {field_name: [passenger_message(error)] for field_name in named}
    return named
