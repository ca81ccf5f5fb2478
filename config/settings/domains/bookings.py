"""The settings the bookings app reads. Bookings: how far back a pickup may be and how far ahead,
and the reference prefix.

Star-imported by ``config.settings.base``; a new bookings setting goes here.
"""

from config.settings.environment import env

# One tolerance for quotes, bookings and intake (bookings.policies.pickup_require_future):
# a pickup up to this far in the past is "now" (clock skew, a slow network, a late push).
PICKUP_PAST_TOLERANCE_SECONDS = env.int("PICKUP_PAST_TOLERANCE_SECONDS", default=300)
# Nobody books a taxi more than this far ahead; later pickups are 400 invalid_input.
BOOKING_HORIZON_DAYS = env.int("BOOKING_HORIZON_DAYS", default=365)
BOOKING_REFERENCE_PREFIX = env("BOOKING_REFERENCE_PREFIX", default="DTD")
