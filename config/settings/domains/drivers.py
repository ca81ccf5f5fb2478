"""The settings the drivers app reads. Drivers: live positions (issue 27, drivers.positions) and
the driver app's tokens.

Star-imported by ``config.settings.base``; a new drivers setting goes here.
"""

from config.settings.environment import REDIS_URL, env

# "redis": GEO sets by area and vehicle class with a short expiry, the latest fix per driver
# in a hash; PostgreSQL keeps only the sampled trail. "database": the driver's own columns.
POSITIONS_BACKEND = env("POSITIONS_BACKEND", default="redis" if REDIS_URL else "database")
POSITIONS_REDIS_URL = env("POSITIONS_REDIS_URL", default=REDIS_URL)
POSITIONS_KEY_PREFIX = env("POSITIONS_KEY_PREFIX", default="pos:")
# Grid cells of the index: half a degree is about 55 km north-south, 33 km east-west here.
POSITIONS_AREA_DEGREES = env.float("POSITIONS_AREA_DEGREES", default=0.5)
# A live position and its index entry last this long after the fix: a minute longer than the
# matcher trusts a position (DISPATCH_DRIVER_SEEN_WITHIN_SECONDS), so that the matcher's rule,
# judged by the fix's own time, decides at its limit, never the index's expiry.
POSITIONS_TTL_SECONDS = env.int(
    "POSITIONS_TTL_SECONDS",
    default=env.int("DISPATCH_DRIVER_SEEN_WITHIN_SECONDS", default=300) + 60,
)
# The sampled trail: at most one row per driver per this many seconds, during a live job.
POSITIONS_TRAIL_SECONDS = env.int("POSITIONS_TRAIL_SECONDS", default=30)
# Fixes in one report (phones buffer them while the signal is gone).
POSITIONS_BATCH_MAX = env.int("POSITIONS_BATCH_MAX", default=100)
# The fastest a driver's reports may imply between two fixes (drivers.positions
# .plausibility); faster is 422 position_implausible. 250 km/h is where fast cars are
# electronically governed, more than twice the UK's 70 mph (113 km/h) national limit: no
# real drive, even an unlawful one, is refused, and GPS error is allowed for separately
# (200 m a pair of fixes). A 272 km jump in a second (issue 35) implies 979,200 km/h.
# 0: off (tests that move a car by hand between reports).
POSITIONS_MAX_PLAUSIBLE_SPEED_KMH = env.int("POSITIONS_MAX_PLAUSIBLE_SPEED_KMH", default=250)
# How long a verified position token (driver app or tracker device) is remembered per
# process: a car reports every few seconds, so API_KEY_CACHE_SECONDS (10 s) would read the
# token every other report (and with every ingest process seeing every car, once per
# process). A token that ends is refused by every process at once all the same: each
# remembered token is checked against revocation markers in the shared cache
# (drivers.positions.revocations).
POSITIONS_TOKEN_CACHE_SECONDS = env.int("POSITIONS_TOKEN_CACHE_SECONDS", default=120)
# A driver app token stops authenticating this long after its login (drivers.tokens);
# each login issues a new one, and a password change or log-out ends it at once.
DRIVER_TOKEN_MAX_AGE_HOURS = env.int("DRIVER_TOKEN_MAX_AGE_HOURS", default=24 * 30)
