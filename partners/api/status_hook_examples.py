"""Request examples of the booking-status hook (issue 40): each posts as it stands on
``make demo`` after the intake example that sends job ``ACME-1001`` (a partner's own job
may be cancelled by its sender)."""

from __future__ import annotations

from api.schema import JUST_NOW, example

BOOKING_STATUS = [
    example(
        "Cancelled by the sender",
        {"jobRef": "ACME-1001", "status": "cancelled", "occurredAt": JUST_NOW},
        summary="The sender's passenger cancelled job ACME-1001",
        request_only=True,
    ),
]
