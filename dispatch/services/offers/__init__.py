"""Offers: one driver (or fleet) at a time, tier after tier, until someone accepts.

Lock order, everywhere: the booking row, then the offer row, then the driver row, each
``FOR NO KEY UPDATE`` so that inserts referencing them (trail, events) never wait. Holding
the booking lock serialises everything that happens to one booking (dispatch steps,
accepts, declines, timeouts, manual assignment), so two of them can never both win; the
partial unique constraints on Offer are the backstop the database enforces regardless.

Booking status moves only through ``bookings.services.booking_status_change``:
confirmed -> offered -> accepted; a decline or timeout goes offered -> confirmed while the
next candidate is tried; every tier exhausted is ``no_driver`` (contract 3.1).
"""

from dispatch.services.offers.answers import (
    fleet_offer_answer,
    offer_accept,
    offer_decline,
    offer_expire,
    offers_expire_overdue,
)
from dispatch.services.offers.assignment import (
    booking_assign_manual,
    booking_dispatch_stop,
    driver_job_release,
    offer_busy_window_refresh,
)
from dispatch.services.offers.rounds import (
    NO_DRIVER_RETRY_BATCH,
    booking_dispatch_next,
    booking_redispatch,
    bookings_dispatch_overdue,
    no_driver_alert_send,
    no_driver_bookings_retry,
    window_open_since,
)
from dispatch.services.offers.trail import DISPATCH_ACTOR

__all__ = [
    "DISPATCH_ACTOR",
    "NO_DRIVER_RETRY_BATCH",
    "booking_assign_manual",
    "booking_dispatch_next",
    "booking_dispatch_stop",
    "booking_redispatch",
    "bookings_dispatch_overdue",
    "driver_job_release",
    "fleet_offer_answer",
    "no_driver_alert_send",
    "no_driver_bookings_retry",
    "offer_accept",
    "offer_busy_window_refresh",
    "offer_decline",
    "offer_expire",
    "offers_expire_overdue",
    "window_open_since",
]
