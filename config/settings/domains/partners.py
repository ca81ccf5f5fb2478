"""The settings the partners app reads. Partners: outbound webhooks, signed requests and live trips
(booking.driver_location events, issue 17).

Star-imported by ``config.settings.base``; a new partners setting goes here.
"""

from config.settings.environment import env

WEBHOOK_ALLOW_PRIVATE_NETWORKS = env.bool("WEBHOOK_ALLOW_PRIVATE_NETWORKS", default=False)
# A receiver that has not answered within this many seconds is a failed attempt, retried.
WEBHOOK_READ_TIMEOUT_SECONDS = env.float("WEBHOOK_READ_TIMEOUT", default=15.0)
# How long a rotated-out signing secret still verifies inbound HMAC and co-signs outbound
# webhooks (contract 5.1: several signatures while a secret is being rotated).
WEBHOOK_SECRET_ROTATION_HOURS = env.int("WEBHOOK_SECRET_ROTATION_HOURS", default=24)
# Contract 1.2: how far x-timestamp of a signed request may be from now, and so how long
# its claim (good once) is kept; the authenticator, the claims and the OpenAPI text read it.
SIGNED_REQUEST_WINDOW_SECONDS = 300
# At most one event per booking this often; the sender looks for due bookings every tick.
DRIVER_LOCATION_EVENT_INTERVAL_SECONDS = env.int(
    "DRIVER_LOCATION_EVENT_INTERVAL_SECONDS", default=15
)
DRIVER_LOCATION_TICK_SECONDS = env.float("DRIVER_LOCATION_TICK_SECONDS", default=2.0)
# A position older than this is neither sent nor shown on the tracking page.
DRIVER_LOCATION_MAX_AGE_SECONDS = env.int("DRIVER_LOCATION_MAX_AGE_SECONDS", default=120)
# Bookings per booking.driver_location message (one message per account and tick).
DRIVER_LOCATION_BATCH_MAX = env.int("DRIVER_LOCATION_BATCH_MAX", default=200)
