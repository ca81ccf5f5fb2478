"""The settings the pricing app reads. Pricing (issue 3): geocoders, the road router, the fare
model and tables from the trade.

Star-imported by ``config.settings.base``; a new pricing setting goes here.
"""

from config.settings.environment import BASE_DIR, env

# Geocoder and router are swappable: the offline defaults need no network; the
# postcodes.io geocoder resolves full UK postcodes when switched on.
# A postcodes.io server (open source, self-hostable; issue 22): set, full postcodes resolve to
# their own centroid through it, with the offline sectors when it is down.
PRICING_POSTCODES_IO_URL = env("PRICING_POSTCODES_IO_URL", default="")
# A street geocoding engine (issue 40; contract 2.1.1): the base URL of a Nominatim server
# (its /search API; e.g. http://127.0.0.1:8088 for your own, or
# https://nominatim.openstreetmap.org, whose usage policy allows at most 1 request/s with an
# identifying user agent) or, with GEOCODER_STREET_ENGINE=photon, of a Photon server.
# Unset: street addresses are placed by their postcode, else refused (address_not_precise).
GEOCODER_STREET_URL = env("GEOCODER_STREET_URL", default="")
GEOCODER_STREET_ENGINE = env("GEOCODER_STREET_ENGINE", default="nominatim")
GEOCODER_STREET_USER_AGENT = env("GEOCODER_STREET_USER_AGENT", default="direct-to-driver-taxi")
# How long an engine's answer is kept (Django cache): a day; OpenStreetMap's streets change
# far more slowly, and a self-hosted Nominatim is updated daily at most.
GEOCODER_STREET_CACHE_SECONDS = env.int("GEOCODER_STREET_CACHE_SECONDS", default=86_400)
PRICING_GEOCODER = env(
    "PRICING_GEOCODER",
    default="pricing.geocoding.AddressGeocoder"
    if GEOCODER_STREET_URL
    else "pricing.geocoding.PostcodesIoGeocoder"
    if PRICING_POSTCODES_IO_URL
    else "pricing.geocoding.OfflineGeocoder",
)
# Full postcodes to their own centroid, offline: the SQLite file `manage.py load_postcodes
# FILE` writes from the ONS Postcode Directory or OS Code-Point Open (absent: sectors).
PRICING_POSTCODE_UNITS_FILE = env(
    "PRICING_POSTCODE_UNITS_FILE", default=str(BASE_DIR / "var" / "postcode_units.sqlite3")
)
# A road router (issue 15): OSRM's HTTP route service or a compatible provider. Unset:
# distances are estimated (straight line x the fitted road factor below).
ROUTING_URL = env("ROUTING_URL", default="")
ROUTING_PROFILE = env("ROUTING_PROFILE", default="driving")
ROUTING_TIMEOUT_SECONDS = env.float("ROUTING_TIMEOUT_SECONDS", default=2.0)
# How the provider takes a key (a query parameter, or a header), and the network's own key.
# A driver's own key (seed 8.5) replaces it for the routing of that driver's jobs.
ROUTING_KEY_PARAM = env("ROUTING_KEY_PARAM", default="")
ROUTING_KEY_HEADER = env("ROUTING_KEY_HEADER", default="")
ROUTING_API_KEY = env("ROUTING_API_KEY", default="")
PRICING_ROUTER = env(
    "PRICING_ROUTER",
    default="pricing.routing.OsrmRouter" if ROUTING_URL else "pricing.routing.GreatCircleRouter",
)
PRICING_GEOCODER_TIMEOUT = env.float("PRICING_GEOCODER_TIMEOUT", default=3.0)
# Estimated road distance = great-circle distance x this factor, fitted to the published
# road distances of 52 real UK journeys (pricing/tests/data/uk_road_distances.tsv;
# bench/bench_road_factor.py): 1.20 halves the error of the former 1.3 (median 4.4 %
# against 8.5 %); four distance bands fitted the same way gained 0.2 points, not worth it.
PRICING_ROAD_FACTOR = env.float("PRICING_ROAD_FACTOR", default=1.2)
# (up to this many miles of the journey, at this many mph); the last band has no limit.
# Urban miles are slow: calibrated so that TfL's published fare ranges for 1-6 mile
# journeys (reference_fares in pricing/data/council_tariffs.json) are reproduced.
PRICING_SPEED_BANDS = ((2.0, 9.0), (6.0, 11.5), (20.0, 25.0), (60.0, 40.0), (None, 55.0))
PRICING_NIGHT_SPEED_FACTOR = 1.25  # 22:00-06:00 London time: emptier roads
PRICING_METER_CRUISE_MPH = 20  # time below this speed is charged as waiting time
# Overrides of the fare factor per vehicle class ({"executive": "1.50"}); the factors
# themselves live in the vehicle-class table (pricing/vehicles.py). Whatever is set
# here, wav is never priced above saloon (Equality Act 2010 s165).
PRICING_VEHICLE_FACTORS: dict[str, str] = {}
PRICING_MEET_AND_GREET_GBP = "25.00"  # seed section 8
PRICING_QUOTE_TTL_HOURS = 24  # seed 2.4
# Other processes see tariff edits within this many seconds (no query per quote).
PRICING_CATALOGUE_CHECK_SECONDS = env.int("PRICING_CATALOGUE_CHECK_SECONDS", default=5)
# Tables from the trade (issue 33, pricing.submissions): the largest photo or PDF of a fare
# table taken, and how many tables one driver or operator login may send in a rolling
# window (refused with 429 submission_limit, Retry-After when the oldest leaves it).
TARIFF_SUBMISSION_MAX_BYTES = env.int("TARIFF_SUBMISSION_MAX_BYTES", default=8 * 1024 * 1024)
TARIFF_SUBMISSIONS_PER_SUBMITTER = env.int("TARIFF_SUBMISSIONS_PER_SUBMITTER", default=3)
TARIFF_SUBMISSIONS_WINDOW_DAYS = env.int("TARIFF_SUBMISSIONS_WINDOW_DAYS", default=7)
