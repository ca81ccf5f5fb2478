"""The booking engine. Every entry point (website, public API, agents, partner, operator
and supplier intake) creates and changes bookings through these functions only.
"""

from bookings.services.changes import (
    STATUS_EVENT_TYPES,
    booking_amend,
    booking_cancel,
    booking_status_change,
    booking_unassigned_record,
)
from bookings.services.creation import (
    PAYMENT_METHOD_ALIASES,
    BookingDraft,
    PassengerDetails,
    booking_create,
    booking_journey_columns,
    booking_redeem_quote,
    bookings_create_many,
    passenger_get_or_create,
    passengers_get_or_create,
)
from bookings.services.page_urls import (
    booking_cancel_url,
    booking_pay_driver_url,
    booking_status_url,
)
from bookings.services.passenger_emails import (
    PassengerEmailCheck,
    email_confirmation_redeem,
    email_confirmation_send,
    passenger_block,
    passenger_unblock,
    passenger_verify,
)
from bookings.services.payments import (
    payment_record_append,
    payment_state,
)

__all__ = [
    "PAYMENT_METHOD_ALIASES",
    "STATUS_EVENT_TYPES",
    "BookingDraft",
    "PassengerDetails",
    "PassengerEmailCheck",
    "booking_amend",
    "booking_cancel",
    "booking_cancel_url",
    "booking_create",
    "booking_journey_columns",
    "booking_pay_driver_url",
    "booking_redeem_quote",
    "booking_status_change",
    "booking_status_url",
    "booking_unassigned_record",
    "bookings_create_many",
    "email_confirmation_redeem",
    "email_confirmation_send",
    "passenger_block",
    "passenger_get_or_create",
    "passenger_unblock",
    "passenger_verify",
    "passengers_get_or_create",
    "payment_record_append",
    "payment_state",
]
