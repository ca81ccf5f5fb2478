"""The pickup code: four digits the passenger tells the driver at the kerb (issue 23).

The driver enters it to start the trip (``on_board``): it shows that the driver took the
passenger who booked, which settles wrong-passenger and no-show disputes. The passenger
sees it on the tracking page and in the booking responses; the driver never sees it
before the passenger says it. Bookings from an account that opted out
(``partners.Account.pickup_codes`` off: a sender whose own app checks the passenger) and
bookings made before codes existed have none, and start without one.

The one home of the rule: the service that moves a job on board calls
:func:`pickup_code_require`; nothing else checks a code.
"""

from __future__ import annotations

import hmac
import secrets

from core.callers import Caller
from core.errors import DomainError
from guards.ratelimits import limit_enforce, limit_spent_refuse

PICKUP_CODE_DIGITS = 4


def pickup_code_issue(*, account=None) -> str:
    """A new booking's code: ``PICKUP_CODE_DIGITS`` random digits, or "" when the sending
    account opted out."""
    if account is not None and not account.pickup_codes:
        return ""
    return f"{secrets.randbelow(10**PICKUP_CODE_DIGITS):0{PICKUP_CODE_DIGITS}d}"


def pickup_code_require(*, booking, code: str | None) -> None:
    """Refuse to start a trip without the booking's code: missing is 400 ``invalid_input``
    naming ``pickupCode``, different is 422 ``pickup_code_mismatch``. After
    ``RATELIMITS["pickup_code"]`` wrong codes for a booking (5 in 15 minutes) every try,
    right or wrong, is 429 ``rate_limited`` until the window ends. A booking without a
    code needs none (and any code sent is ignored)."""
    if not booking.pickup_code:
        return
    code = (code or "").strip()
    if not code:
        raise DomainError(
            "invalid_input",
            "Ask the passenger for their pickup code to start the trip.",
            errors={"pickupCode": [f"Required: the passenger's {PICKUP_CODE_DIGITS}-digit code."]},
        )
    counted = f"booking:{booking.pk}"
    limit_spent_refuse(
        "pickup_code",
        value=counted,
        detail="Too many wrong pickup codes for this booking: try again later, or call the "
        "passenger.",
    )
    if not hmac.compare_digest(code.encode(), booking.pickup_code.encode()):
        limit_enforce(Caller(), "pickup_code", value=counted)  # a wrong code spends one
        raise DomainError(
            "pickup_code_mismatch",
            "That is not this booking's pickup code: check you have the right passenger.",
            errors={"pickupCode": ["Does not match the booking's code."]},
        )
