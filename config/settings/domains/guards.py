"""The settings the guards app reads: rate limits (contract 1.4), applied by
``guards.ratelimits`` and counted by ``guards.ratelimit_cache``.

Star-imported by ``config.settings.base``; a new limit goes here.
"""

from config.settings.environment import env

# Limits of 2,000 or more per period are counted in blocks of a thousandth of the limit,
# up to this many (guards.ratelimit_cache): one Redis round trip per block, not per request.
# 1 counts every request in Redis.
RATELIMIT_COUNT_BLOCK_MAX = env.int("RATELIMIT_COUNT_BLOCK_MAX", default=100)
# The cookie that counts a browser's quotes on the website (quote_website_session below);
# the privacy notice names it.
QUOTE_BROWSER_COOKIE = "dtd_quote_browser"
RATELIMITS = {
    # Stated by the specification (seed section 8): 30 quotes per hour per caller.
    "quote_v1": env("RATELIMIT_QUOTE_V1", default="30/h"),
    "quote_alias": env("RATELIMIT_QUOTE_ALIAS", default="60/h"),
    # The website's quote form (issue 34), apart from the API's: the specification's 30 an
    # hour per caller, where the caller is one browser session, and beside it a ceiling per
    # address, higher because many phones share one (a mobile network's or a hotel's NAT),
    # for a client that drops its cookie to start a fresh session each time.
    "quote_website_session": env("RATELIMIT_QUOTE_WEBSITE_SESSION", default="30/h"),
    "quote_website_address": env("RATELIMIT_QUOTE_WEBSITE_ADDRESS", default="120/h"),
    "booking": env("RATELIMIT_BOOKING", default="30/h"),
    "lookup": env("RATELIMIT_LOOKUP", default="120/h"),
    # Place suggestions on every door (GET /api/public/v1/places, the website's
    # /places/suggest/, MCP find_places; pricing.suggestions.places_find): one a keystroke.
    "places": env("RATELIMIT_PLACES", default="600/h"),
    "intake": env("RATELIMIT_INTAKE", default="600/m"),
    "verify": env("RATELIMIT_VERIFY", default="20/h"),
    "driver": env("RATELIMIT_DRIVER", default="600/m"),
    # Position reports per driver (drivers.api.ingest, the app's and OsmAnd's together): a
    # car reports every 5 s, a tracker at most every second; twice that leaves room for
    # retries. Exact counting (under 2,000): one Redis round trip per report.
    "driver_location": env("RATELIMIT_DRIVER_LOCATION", default="120/m"),
    # Tokens refused at the position ingest per client address (issue 35): each costs a
    # database read, and after these a token not already remembered is 429 unread. A phone
    # whose token ended keeps reporting every 5 s (12 a minute) until its driver logs in
    # again: four such phones behind one address stay under it.
    "ingest_token": env("RATELIMIT_INGEST_TOKEN", default="60/m"),
    # Per passenger email, whoever the caller is (seed 7: too many bookings from one email).
    "booking_per_email": env("RATELIMIT_BOOKING_PER_EMAIL", default="20/d"),
    # Seed section 8: 8 price checks per hour for an unconfirmed email.
    "unconfirmed_email": env("RATELIMIT_UNCONFIRMED_EMAIL", default="8/h"),
    # Sign-in codes emailed to a passenger authorizing an AI agent (agents app): per email,
    # and per client IP; OAuth client registrations per client IP.
    "sign_in_code": env("RATELIMIT_SIGN_IN_CODE", default="5/h"),
    "sign_in_ip": env("RATELIMIT_SIGN_IN_IP", default="30/h"),
    "oauth_register": env("RATELIMIT_OAUTH_REGISTER", default="20/h"),
    # Wrong pickup codes per booking (bookings.pickup_codes): then every try is refused
    # until the window ends, so 10,000 codes cannot be walked through.
    "pickup_code": env("RATELIMIT_PICKUP_CODE", default="5/15m"),
}
