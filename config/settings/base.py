"""Settings shared by every configuration.

Everything a deployment changes is read from the environment (contract section 10).
Defaults here run with no servers at all: SQLite, local-memory cache, Celery tasks
executed in-process. ``local``, ``test`` and ``production`` adjust from here.
"""

import ipaddress
from decimal import Decimal
from pathlib import Path

import environ
from celery.schedules import crontab
from kombu import Queue

from operations.logs import logging_config

BASE_DIR = Path(__file__).resolve().parent.parent.parent

env = environ.Env()

# No default here: production requires SECRET_KEY, the local configuration makes and keeps
# its own random key (local.py), tests use a fixed one.
SECRET_KEY = env("SECRET_KEY", default="")
DEBUG = env.bool("DJANGO_DEBUG", default=False)

SITE_URL = env("SITE_URL", default="http://127.0.0.1:8000").rstrip("/")
# Every connected domain serves the same API (seed section 1); the OpenAPI description
# lists each of them as a server (contract section 8).
CONNECTED_DOMAINS = env.list("CONNECTED_DOMAINS", default=[SITE_URL])
ALLOWED_HOSTS = env.list("ALLOWED_HOSTS", default=["127.0.0.1", "localhost", "testserver"])


def _host_of(url: str) -> str:
    return url.split("://", 1)[-1].split("/", 1)[0].split(":", 1)[0]


ALLOWED_HOSTS += [_host_of(u) for u in [SITE_URL, *CONNECTED_DOMAINS] if _host_of(u)]
CSRF_TRUSTED_ORIGINS = env.list("CSRF_TRUSTED_ORIGINS", default=[])

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "rest_framework",
    "rest_framework.authtoken",
    "rest_framework_api_key",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "axes",
    "api",
    "guards",
    "partners",
    "pricing",
    "bookings",
    "drivers",
    "dispatch",
    "billing",
    "oauth2_provider",
    "agents",
    "operations",
    "privacy",
]

MIDDLEWARE = [
    # First, so that every response (redirects and errors included) carries X-Request-ID
    # and every log line of the request its id (operations.request_ids, contract 10.1).
    # One layer since issue 41 (it was this screen plus django-guid's middleware).
    "operations.request_ids.request_id_middleware",
    "operations.metrics.RequestMetricsMiddleware",
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    # A control character in a path, query, form or JSON string: 400 before any view.
    "api.control_characters.control_characters_refuse",
    # Whatever an inner layer answers under /api/, an error is problem JSON.
    "api.problems.ProblemResponsesMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    # Staff views of bookings, passengers and drivers in the back office (issue 39).
    "privacy.audit.StaffViewAuditMiddleware",
    # Last, as django-axes asks: turns a locked-out admin login into its lockout response.
    "axes.middleware.AxesMiddleware",
]

AUTHENTICATION_BACKENDS = [
    # Refuses logins from a locked-out client before any password is checked.
    "axes.backends.AxesStandaloneBackend",
    "django.contrib.auth.backends.ModelBackend",
]

# Logins are throttled by django-axes (contract 6; config.logins): the back office, the
# driver and operator pages and the driver app's login. After AXES_FAILURE_LIMIT failures
# in a row for one username from one client address, that username is locked out at that
# address for AXES_COOLOFF_TIME hours (429 with Retry-After; a page with the lock-out
# message, problem JSON on the API): keyed on the pair, so one address's failures never
# lock out another user, nor one user's failures a user elsewhere (issue 35). The client
# address is the one rate limits use (forwarded headers believed only from
# TRUSTED_PROXIES: behind a proxy that must name it, or every client is the proxy). Axes
# counts in the database (its default handler), so the throttle holds with Redis down.
AXES_ENABLED = env.bool("AXES_ENABLED", default=True)
AXES_ONLY_ADMIN_SITE = False
AXES_FAILURE_LIMIT = env.int("AXES_FAILURE_LIMIT", default=10)
AXES_COOLOFF_TIME = env.float("AXES_COOLOFF_HOURS", default=0.25)
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"]]
AXES_HANDLER = "axes.handlers.database.AxesDatabaseHandler"
AXES_RESET_ON_SUCCESS = True
AXES_CLIENT_IP_CALLABLE = "api.callers.client_ip"
AXES_WHITELIST_CALLABLE = "config.logins.login_not_watched"
AXES_LOCKOUT_CALLABLE = "config.logins.login_lockout_response"

ROOT_URLCONF = "config.urls"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
            "builtins": ["core.templatetags.localtime"],
        },
    },
]

WSGI_APPLICATION = "config.wsgi.application"

DATABASES = {
    "default": env.db("DATABASE_URL", default=f"sqlite:///{BASE_DIR / 'db.sqlite3'}"),
}
DATABASES["default"]["ATOMIC_REQUESTS"] = False
if DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql":
    DATABASES["default"].setdefault("CONN_MAX_AGE", env.int("CONN_MAX_AGE", default=60))
    DATABASES["default"]["CONN_HEALTH_CHECKS"] = True
    # Server-side parameter binding lets psycopg prepare the statements a worker repeats
    # on every request (the booking and event INSERTs), saving the server a parse and plan.
    DATABASES["default"].setdefault("OPTIONS", {})["server_side_binding"] = env.bool(
        "DATABASE_SERVER_SIDE_BINDING", default=True
    )
    # Under ASGI, Django runs each request in a fresh thread, so a persistent connection
    # (CONN_MAX_AGE) is not reused: a connection pool per process is (psycopg[pool]).
    if env.bool("DATABASE_POOL", default=False):
        DATABASES["default"]["CONN_MAX_AGE"] = 0
        DATABASES["default"]["OPTIONS"]["pool"] = {
            "min_size": env.int("DATABASE_POOL_MIN", default=2),
            "max_size": env.int("DATABASE_POOL_MAX", default=10),
        }
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # SQLite is the embedded default, so it must survive concurrent requests (issue 13):
    # write-ahead logging lets readers run beside the one writer; IMMEDIATE transactions
    # take the write lock at BEGIN, so two transactions never both read and then fail to
    # upgrade ("database is locked"); the busy timeout makes a writer wait its turn.
    DATABASES["default"].setdefault("OPTIONS", {}).update(
        {
            "transaction_mode": "IMMEDIATE",
            "timeout": env.int("SQLITE_BUSY_TIMEOUT_SECONDS", default=30),
            "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
        }
    )
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# seed_demo creates the local back-office user (admin/admin) only where this is on: the
# local configuration, never production.
SEED_DEMO_BACK_OFFICE_USER = False

REDIS_URL = env("REDIS_URL", default="")
# An unreachable Redis must cost a request little (contract 1.4: rate limits then count
# per process): connect and command timeouts in seconds.
REDIS_CACHE_TIMEOUTS = {
    "SOCKET_CONNECT_TIMEOUT": env.float("REDIS_CONNECT_TIMEOUT", default=1.0),
    "SOCKET_TIMEOUT": env.float("REDIS_SOCKET_TIMEOUT", default=1.0),
}
if REDIS_URL:
    CACHES = {
        "default": {
            # django-redis keeps one client per process (Django's own backend builds a new
            # client object for every call), which matters on every rate-limited request.
            "BACKEND": "django_redis.cache.RedisCache",
            "LOCATION": REDIS_URL,
            "KEY_PREFIX": env("CACHE_KEY_PREFIX", default="dtd"),
            "OPTIONS": REDIS_CACHE_TIMEOUTS,
        },
        # Rate-limit counters only (RATELIMIT_USE_CACHE): the same Redis and prefix, with a
        # client that counts a request in one round trip (guards.ratelimit_cache).
        "ratelimit": {
            "BACKEND": "django_redis.cache.RedisCache",
            "LOCATION": REDIS_URL,
            "KEY_PREFIX": env("CACHE_KEY_PREFIX", default="dtd"),
            "OPTIONS": {
                "CLIENT_CLASS": "guards.ratelimit_cache.RateLimitCacheClient",
                **REDIS_CACHE_TIMEOUTS,
            },
        },
    }
else:
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

LANGUAGE_CODE = "en-gb"
USE_I18N = True
USE_TZ = True
TIME_ZONE = "UTC"
# The one local time zone (core/localtime.py): tariff bands, billing weeks, daily limits
# and every time shown on pages, in emails and on job cards (contract section 1).
LOCAL_TIME_ZONE = "Europe/London"

STATIC_URL = "static/"
STATIC_ROOT = BASE_DIR / "staticfiles"
# The site's own stylesheet and scripts (static/css/site.css documents its classes).
STATICFILES_DIRS = [BASE_DIR / "static"]
# Static files are served by WhiteNoise straight from the apps in development and tests.
WHITENOISE_USE_FINDERS = True
# Uploaded files (photos of fare tables, issue 33) go through Django's storage API: local
# files under MEDIA_ROOT by default; S3-compatible storage (AWS, MinIO, Cloudflare R2, ...)
# through django-storages when FILE_STORAGE_S3_BUCKET is set (README, "Configuration").
# Neither is served publicly: staff open a photo through the admin.
MEDIA_ROOT = env("MEDIA_ROOT", default=str(BASE_DIR / "media"))
MEDIA_URL = "media/"
FILE_STORAGE_S3_BUCKET = env("FILE_STORAGE_S3_BUCKET", default="")
if FILE_STORAGE_S3_BUCKET:
    DEFAULT_FILE_STORAGE_BACKEND = {
        "BACKEND": "storages.backends.s3.S3Storage",
        "OPTIONS": {
            "bucket_name": FILE_STORAGE_S3_BUCKET,
            # Blank: AWS itself; set for MinIO, R2, Scaleway and other S3-compatible stores.
            "endpoint_url": env("FILE_STORAGE_S3_ENDPOINT_URL", default="") or None,
            "region_name": env("FILE_STORAGE_S3_REGION", default="") or None,
            "access_key": env("FILE_STORAGE_S3_ACCESS_KEY_ID", default="") or None,
            "secret_key": env("FILE_STORAGE_S3_SECRET_ACCESS_KEY", default="") or None,
            "location": env("FILE_STORAGE_S3_PREFIX", default=""),
            "default_acl": "private",
            "querystring_auth": True,
            "file_overwrite": False,
        },
    }
else:
    DEFAULT_FILE_STORAGE_BACKEND = {"BACKEND": "django.core.files.storage.FileSystemStorage"}
STORAGES = {
    "default": DEFAULT_FILE_STORAGE_BACKEND,
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedStaticFilesStorage"},
}

# Bodies larger than this are refused with a problem response (api.problems).
DATA_UPLOAD_MAX_MEMORY_SIZE = env.int("DATA_UPLOAD_MAX_MEMORY_SIZE", default=1024 * 1024)

EMAIL_BACKEND = env("EMAIL_BACKEND", default="django.core.mail.backends.console.EmailBackend")
DEFAULT_FROM_EMAIL = env("DEFAULT_FROM_EMAIL", default="bookings@localhost")
# The folder of Django's file-based email backend, when EMAIL_BACKEND chooses it (contract 10).
EMAIL_FILE_PATH = env("EMAIL_FILE_PATH", default=str(BASE_DIR / "sent-emails"))

# --- API machinery ---------------------------------------------------------------------

# The public API's authenticators (api.views.PublicAPIView), in order: an account's API key,
# then an HMAC signature (contract 1.2).
PUBLIC_API_AUTHENTICATION_CLASSES = [
    "partners.authentication.AccountKeyAuthentication",
    "partners.authentication.HmacSignatureAuthentication",
]

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [],
    "DEFAULT_PERMISSION_CLASSES": [],
    "DEFAULT_RENDERER_CLASSES": ["rest_framework.renderers.JSONRenderer"],
    "DEFAULT_PARSER_CLASSES": ["api.parsers.GuardedJSONParser"],
    "EXCEPTION_HANDLER": "api.problems.problem_exception_handler",
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "UNAUTHENTICATED_USER": None,
    "COERCE_DECIMAL_TO_STRING": False,
    "DEFAULT_PAGINATION_CLASS": "rest_framework.pagination.LimitOffsetPagination",
    "PAGE_SIZE": 50,
}

SPECTACULAR_SETTINGS = {
    "TITLE": "Direct-to-Driver Taxi Booking API",
    "DESCRIPTION": (
        "A zero-commission taxi network: passengers book licensed drivers directly, on "
        "regulated council tariffs or an operator's approved rate. Built for AI agents and "
        "partner platforms as well as for the website. The platform never takes payment: "
        "the passenger pays the driver directly. Errors are RFC 9457 problem details "
        "(application/problem+json) with a stable `code`. Every POST that creates or "
        "changes something accepts an `Idempotency-Key` header."
    ),
    "VERSION": "1.0.0",
    "OAS_VERSION": "3.1.0",
    "SERVE_INCLUDE_SCHEMA": False,
    "SCHEMA_PATH_PREFIX": r"/api/public(/v1)?",
    "COMPONENT_SPLIT_REQUEST": True,
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    "PREPROCESSING_HOOKS": ["api.schema.public_paths_only"],
    "POSTPROCESSING_HOOKS": [
        "drf_spectacular.hooks.postprocess_schema_enums",
        "api.schema.add_servers",
        "api.schema.examples_dated",
    ],
    "ENUM_NAME_OVERRIDES": {
        "VehicleTypeEnum": "pricing.vehicles.VehicleType",
        "BookingStatusEnum": "bookings.models.BookingStatus",
        "FlightStatusEnum": "bookings.models.FlightStatus",
        # Each booking form has its own payment enum (seed 2.5-2.7); named apart so the
        # generator never merges them under one name.
        "AliasPaymentMethodEnum": "bookings.api.serializers.ALIAS_PAYMENT_METHODS",
        "V1PaymentMethodEnum": "bookings.api.serializers.V1_PAYMENT_METHODS",
        "V1RedeemPaymentMethodEnum": "bookings.api.serializers.V1_QUOTE_PAYMENT_METHODS",
    },
}

# Rate limits (contract 1.4): "<count>/<period>" with period s, m, h or d. Anonymous calls
# are limited per IP, keyed calls per key (an account may carry its own higher limit).
RATELIMIT_ENABLE = env.bool("RATELIMIT_ENABLE", default=True)
RATELIMIT_USE_CACHE = "ratelimit" if "ratelimit" in CACHES else "default"
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

# Reverse proxies in front of the app (api.callers.client_ip): the client's address is
# read from X-Forwarded-For past this many trusted hops, and past any hop whose address is
# in TRUSTED_PROXIES (comma-separated CIDRs). With neither, REMOTE_ADDR is the client:
# never trust X-Forwarded-For when nothing in front of the app overwrites it.
TRUSTED_PROXY_COUNT = env.int("TRUSTED_PROXY_COUNT", default=0)
TRUSTED_PROXIES = [
    str(ipaddress.ip_network(cidr, strict=False))
    for cidr in env.list("TRUSTED_PROXIES", default=[])
]

# Verified API keys are remembered per process this long (0: look up every request).
API_KEY_CACHE_SECONDS = env.int("API_KEY_CACHE_SECONDS", default=10)

# Idempotency keys are kept this long (contract 1.3).
IDEMPOTENCY_RETENTION_HOURS = 24

# --- Pricing (issue 3) -----------------------------------------------------------------
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
# Fernet keys for secrets stored encrypted (core.encryption; a driver's own maps key): the
# first encrypts, all decrypt. Unset: one key derived from SECRET_KEY.
FIELD_ENCRYPTION_KEYS = env.list("FIELD_ENCRYPTION_KEYS", default=[])
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
# One tolerance for quotes, bookings and intake (bookings.policies.pickup_require_future):
# a pickup up to this far in the past is "now" (clock skew, a slow network, a late push).
PICKUP_PAST_TOLERANCE_SECONDS = env.int("PICKUP_PAST_TOLERANCE_SECONDS", default=300)
# Nobody books a taxi more than this far ahead; later pickups are 400 invalid_input.
BOOKING_HORIZON_DAYS = env.int("BOOKING_HORIZON_DAYS", default=365)

# Tables from the trade (issue 33, pricing.submissions): the largest photo or PDF of a fare
# table taken, and how many tables one driver or operator login may send in a rolling
# window (refused with 429 submission_limit, Retry-After when the oldest leaves it).
TARIFF_SUBMISSION_MAX_BYTES = env.int("TARIFF_SUBMISSION_MAX_BYTES", default=8 * 1024 * 1024)
TARIFF_SUBMISSIONS_PER_SUBMITTER = env.int("TARIFF_SUBMISSIONS_PER_SUBMITTER", default=3)
TARIFF_SUBMISSIONS_WINDOW_DAYS = env.int("TARIFF_SUBMISSIONS_WINDOW_DAYS", default=7)

BOOKING_REFERENCE_PREFIX = env("BOOKING_REFERENCE_PREFIX", default="DTD")

# Notifications: "console" prints job cards; "twilio" sends SMS and WhatsApp for real.
NOTIFICATION_BACKEND = env("NOTIFICATION_BACKEND", default="console")
TWILIO_ACCOUNT_SID = env("TWILIO_ACCOUNT_SID", default="")
TWILIO_AUTH_TOKEN = env("TWILIO_AUTH_TOKEN", default="")
TWILIO_SMS_FROM = env("TWILIO_SMS_FROM", default="")
TWILIO_WHATSAPP_FROM = env("TWILIO_WHATSAPP_FROM", default="")

WEBHOOK_ALLOW_PRIVATE_NETWORKS = env.bool("WEBHOOK_ALLOW_PRIVATE_NETWORKS", default=False)
# A receiver that has not answered within this many seconds is a failed attempt, retried.
WEBHOOK_READ_TIMEOUT_SECONDS = env.float("WEBHOOK_READ_TIMEOUT", default=15.0)
# How long a rotated-out signing secret still verifies inbound HMAC and co-signs outbound
# webhooks (contract 5.1: several signatures while a secret is being rotated).
WEBHOOK_SECRET_ROTATION_HOURS = env.int("WEBHOOK_SECRET_ROTATION_HOURS", default=24)
# Contract 1.2: how far x-timestamp of a signed request may be from now, and so how long
# its claim (good once) is kept; the authenticator, the claims and the OpenAPI text read it.
SIGNED_REQUEST_WINDOW_SECONDS = 300

# --- Celery ----------------------------------------------------------------------------

CELERY_BROKER_URL = env("CELERY_BROKER_URL", default=REDIS_URL or "memory://")
CELERY_RESULT_BACKEND = None
CELERY_TASK_ALWAYS_EAGER = env.bool("CELERY_TASK_ALWAYS_EAGER", default=not REDIS_URL)
CELERY_TASK_EAGER_PROPAGATES = True
CELERY_TASK_ACKS_LATE = True
# A task whose worker process is killed mid-run (SIGKILL, out of memory) goes back to its
# queue instead of being acknowledged as failed: the tasks are idempotent (claims, unique
# constraints), so running it again sends nothing twice (tests/test_operations_faults.py).
CELERY_TASK_REJECT_ON_WORKER_LOST = True
# Celery's default. Tasks here are short (tens of ms); at 1, a pool process that finished
# a task waited for the worker to fetch the next message from Redis, and a burst drained
# at 41 bookings/s instead of 72-75 (bench/bench_dispatch_burst.py, same machine, same
# minute). Pool processes are handed reserved tasks only when idle, so a slow task does
# not hold the others back.
CELERY_WORKER_PREFETCH_MULTIPLIER = 4
CELERY_TIMEZONE = LOCAL_TIME_ZONE
# Celery's Django fixup closes every database connection before and after each task
# unless this is set; then it closes them once every this many tasks. Reconnecting for
# each task (a PostgreSQL backend started, authenticated, its prepared statements lost)
# cost more than most tasks' own work (bench/bench_dispatch_burst.py).
CELERY_DB_REUSE_MAX = env.int("CELERY_DB_REUSE_MAX", default=100)
# Queues (issue 25): dispatch and job cards, partner webhooks, and billing each have their
# own, so a slow partner (15 s read timeout) or an invoice run never holds a driver's offer
# back. "celery" takes the housekeeping (api.tasks). A worker started without -Q serves
# them all (make demo, tests); the Procfile gives each its own worker (README).
CELERY_QUEUE_NAMES = ("dispatch", "webhooks", "billing", "celery")
CELERY_TASK_QUEUES = tuple(Queue(name, routing_key=name) for name in CELERY_QUEUE_NAMES)
CELERY_TASK_DEFAULT_QUEUE = "celery"
CELERY_TASK_ROUTES = {
    "dispatch.tasks.*": {"queue": "dispatch"},
    "partners.tasks.*": {"queue": "webhooks"},
    "billing.tasks.*": {"queue": "billing"},
}
# Workers log through LOGGING (JSON in production, with each task's request id), not
# through Celery's own handler.
CELERY_WORKER_HIJACK_ROOT_LOGGER = False
# --- Live trips: booking.driver_location events (issue 17) ---------------------------------
# At most one event per booking this often; the sender looks for due bookings every tick.
DRIVER_LOCATION_EVENT_INTERVAL_SECONDS = env.int(
    "DRIVER_LOCATION_EVENT_INTERVAL_SECONDS", default=15
)
DRIVER_LOCATION_TICK_SECONDS = env.float("DRIVER_LOCATION_TICK_SECONDS", default=2.0)
# A position older than this is neither sent nor shown on the tracking page.
DRIVER_LOCATION_MAX_AGE_SECONDS = env.int("DRIVER_LOCATION_MAX_AGE_SECONDS", default=120)
# Bookings per booking.driver_location message (one message per account and tick).
DRIVER_LOCATION_BATCH_MAX = env.int("DRIVER_LOCATION_BATCH_MAX", default=200)

# --- Live positions (issue 27, drivers.positions) ------------------------------------------
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
# How long a verified position token (driver app or tracker device) is remembered per
# process: a car reports every few seconds, so API_KEY_CACHE_SECONDS (10 s) would read the
# token every other report (and with every ingest process seeing every car, once per
# process). A revocation reaches the other processes within this; it only ever lets a
# logged-out app keep reporting positions that long.
POSITIONS_TOKEN_CACHE_SECONDS = env.int("POSITIONS_TOKEN_CACHE_SECONDS", default=120)

# Re-dispatch (issue 34): a booking without a driver is offered again while its window is
# open: when a driver declines, times out, comes online or frees up, and every
# DISPATCH_REDISPATCH_EVERY_SECONDS (beat, or the embedded dispatcher), at most
# DISPATCH_REDISPATCH_BATCH bookings a pass, soonest pickup first. The window closes
# DISPATCH_GIVE_UP_AFTER_PICKUP_MINUTES after the pickup time: then the passenger and the
# sender are told and the booking waits on the desk's queue (bookings.policies).
DISPATCH_REDISPATCH_EVERY_SECONDS = env.float("DISPATCH_REDISPATCH_EVERY_SECONDS", default=30.0)
DISPATCH_REDISPATCH_BATCH = env.int("DISPATCH_REDISPATCH_BATCH", default=1000)
# A pass stops searching after this long (wall clock), soonest pickups first, so that
# passes never pile up behind each other; the rest wait for the next pass.
DISPATCH_REDISPATCH_BUDGET_SECONDS = env.float("DISPATCH_REDISPATCH_BUDGET_SECONDS", default=10.0)
DISPATCH_GIVE_UP_AFTER_PICKUP_MINUTES = env.int("DISPATCH_GIVE_UP_AFTER_PICKUP_MINUTES", default=20)
CELERY_BEAT_SCHEDULE: dict = {
    # Safety net behind the per-offer countdown: expire offers whose timeout passed.
    "dispatch-offers-expire-overdue": {
        "task": "dispatch.tasks.offers_expire_overdue",
        "schedule": 30.0,
    },
    # Bookings without a driver offered again while their window is open; those whose
    # window closed told to the passenger and the sender (issue 34).
    "dispatch-redispatch": {
        "task": "dispatch.tasks.bookings_redispatch",
        "schedule": DISPATCH_REDISPATCH_EVERY_SECONDS,
    },
    # Bookings the dispatcher handed over whose task message was lost (a broker restart).
    "dispatch-bookings-overdue": {
        "task": "dispatch.tasks.bookings_dispatch_overdue",
        "schedule": env.float("DISPATCH_OVERDUE_SWEEP_SECONDS", default=60.0),
    },
    # Job cards of open offers whose send task was lost (a worker killed, Redis restarted).
    "dispatch-job-cards-overdue": {
        "task": "dispatch.tasks.job_cards_send_overdue",
        "schedule": env.float("DISPATCH_OVERDUE_SWEEP_SECONDS", default=60.0),
    },
    # Webhook retries due now: long waits are held in the database, not in the broker.
    "partners-webhook-deliveries-due": {
        "task": "partners.tasks.webhook_deliveries_due_send",
        "schedule": 30.0,
    },
    # Live trips: the latest car positions of due bookings, one message per account.
    # A tick that waited longer than its own interval is dropped; the next one covers it.
    "partners-driver-locations-tick": {
        "task": "partners.tasks.driver_locations_tick",
        "schedule": DRIVER_LOCATION_TICK_SECONDS,
        "options": {"expires": DRIVER_LOCATION_TICK_SECONDS},
    },
    # The retention schedule (privacy.schedule), once a day at a quiet hour.
    "privacy-retention-apply": {
        "task": "privacy.tasks.retention_apply",
        "schedule": crontab(hour=3, minute=41),
    },
    # Idempotency-Key records are kept 24 hours (contract 1.3), then purged.
    "api-idempotency-records-purge": {
        "task": "api.tasks.idempotency_records_purge",
        "schedule": crontab(minute=17),
    },
    # Signatures that can no longer be accepted need not be remembered (contract 1.2).
    "partners-signed-requests-purge": {
        "task": "partners.tasks.signed_requests_expired_purge",
        "schedule": 60.0,
    },
    # Subscriptions (and trial ends) of newly approved drivers.
    "billing-subscriptions-ensure": {
        "task": "billing.tasks.subscriptions_ensure_now",
        "schedule": 60.0,
    },
    # Flights of upcoming airport pickups (only when a flight status provider is set).
    "dispatch-flights-poll": {
        "task": "dispatch.tasks.flights_poll",
        "schedule": 300.0,
    },
    # Provider charges due (first attempts and retries of failed ones).
    "billing-payments-charge-due": {
        "task": "billing.tasks.payments_charge_due",
        "schedule": 300.0,
    },
    # Provider payments whose outcome we do not know (lost webhook, failed commit).
    "billing-payments-reconcile": {
        "task": "billing.tasks.payments_reconcile",
        "schedule": 900.0,
    },
    # Weekly invoices for the week that just ended (Monday 01:00, Europe/London).
    "billing-invoice-last-week": {
        "task": "billing.tasks.invoices_generate_last_week",
        "schedule": crontab(minute=0, hour=1, day_of_week="mon"),
    },
}

# --- Dispatch (issue 5) ----------------------------------------------------------------
DISPATCH_OFFER_TIMEOUT_SECONDS = env.int("DISPATCH_OFFER_TIMEOUT_SECONDS", default=60)
DISPATCH_FLEET_OFFER_TIMEOUT_SECONDS = env.int("DISPATCH_FLEET_OFFER_TIMEOUT_SECONDS", default=300)
# A driver not seen for this long is not offered jobs, even if marked online.
DISPATCH_DRIVER_SEEN_WITHIN_SECONDS = env.int("DISPATCH_DRIVER_SEEN_WITHIN_SECONDS", default=300)
DISPATCH_SEARCH_RINGS_KM = (2, 6, 18, 50)
# False: the dispatcher process (manage.py run_dispatcher, dispatch/relay.py) hands new
# bookings to the Celery workers. True: each web process dispatches its own bookings after
# commit, in process: the local configuration (eager Celery, no broker, no dispatcher).
DISPATCH_IN_PROCESS = env.bool("DISPATCH_IN_PROCESS", default=CELERY_TASK_ALWAYS_EAGER)
# With tasks in-process there is no beat: the dispatcher process runs the periodic tasks
# (CELERY_BEAT_SCHEDULE) and expires overdue offers every pass (dispatch/periodic.py).
DISPATCHER_RUNS_PERIODIC_TASKS = env.bool(
    "DISPATCHER_RUNS_PERIODIC_TASKS", default=CELERY_TASK_ALWAYS_EAGER
)
DISPATCH_HANDOVER_GRACE_SECONDS = env.int("DISPATCH_HANDOVER_GRACE_SECONDS", default=120)
# An open offer's job card not written after this long is sent by the periodic sweep.
DISPATCH_JOB_CARD_GRACE_SECONDS = env.int("DISPATCH_JOB_CARD_GRACE_SECONDS", default=60)
DISPATCH_NATIONAL_PICKUP_RADIUS_KM = 80
# The dispatch window (bookings.policies.dispatch_window_opens_at): a prebooked journey
# stays confirmed until this long before its pickup: a base lead plus a share of the
# journey's own duration (long journeys need national drivers, who must reposition),
# never more than the cap. A 20-minute hop opens 50 minutes ahead; a 3-hour run 3.5 hours.
DISPATCH_LEAD_MINUTES = env.int("DISPATCH_LEAD_MINUTES", default=30)
DISPATCH_LEAD_JOURNEY_FACTOR = env.float("DISPATCH_LEAD_JOURNEY_FACTOR", default=1.0)
DISPATCH_LEAD_MAX_MINUTES = env.int("DISPATCH_LEAD_MAX_MINUTES", default=360)
DISPATCH_TRAIL_SKIPPED_LIMIT = 25
# Capacity in time (issue 34): a job keeps its driver busy from its pickup to its
# estimated end (the priced journey's minutes, or DISPATCH_UNKNOWN_DURATION_MINUTES when
# none was priced) plus DISPATCH_TRAVEL_TO_NEXT_PICKUP_MINUTES to reach the next pickup.
# Both are this service's own allowances, not measured figures; a driver's load for a
# job counts only the jobs they hold whose busy time overlaps its own.
DISPATCH_TRAVEL_TO_NEXT_PICKUP_MINUTES = env.int(
    "DISPATCH_TRAVEL_TO_NEXT_PICKUP_MINUTES", default=20
)
DISPATCH_UNKNOWN_DURATION_MINUTES = 60
DISPATCH_OFFER_LINK_MAX_AGE_SECONDS = 1800
# The driver app lists a job cancelled under the driver (held or offered) for this long.
DISPATCH_DRIVER_CANCELLED_SHOWN_HOURS = 12
# "No driver found" alerts go to these addresses (mail_admins).
ADMINS = [("Dispatch desk", email) for email in env.list("ADMIN_EMAILS", default=[])]
LOGIN_URL = "/driver/login/"

# --- Airport pickups, waiting and no-shows (issue 15) -------------------------------------
# Flight status provider: AeroDataBox (RapidAPI) when a key is set; without one, flight
# updates come from partners and operators (POST /api/public/v1/flights/status) and the
# back office.
AERODATABOX_API_KEY = env("AERODATABOX_API_KEY", default="")
AERODATABOX_BASE_URL = env("AERODATABOX_BASE_URL", default="https://aerodatabox.p.rapidapi.com")
FLIGHT_STATUS_TIMEOUT_SECONDS = 10
# The poll looks up the flights of airport pickups due within this many hours.
FLIGHT_POLL_AHEAD_HOURS = env.int("FLIGHT_POLL_AHEAD_HOURS", default=12)
# A pickup within this distance of a UK airport is an airport pickup.
AIRPORT_PICKUP_RADIUS_M = 3000
# Landing -> pickup: immigration and baggage (dispatch/data/airport_pickups.json tunes it
# per airport). An unknown origin counts as international.
AIRPORT_COLLECTION_ALLOWANCE_MINUTES = {"domestic": 30, "international": 45}
# Free waiting: from landing at an airport, from the driver's arrival elsewhere (not
# before the booked pickup time). A tariff (council or operator) may set its own.
AIRPORT_FREE_WAITING_MINUTES = env.int("AIRPORT_FREE_WAITING_MINUTES", default=60)
WAITING_FREE_MINUTES = env.int("WAITING_FREE_MINUTES", default=10)
# A no-show is recorded only by a driver within this distance of the pickup.
NO_SHOW_MAX_DISTANCE_M = env.int("NO_SHOW_MAX_DISTANCE_M", default=500)
# "arrived" is recorded only while the driver's own latest position report (at most
# DRIVER_LOCATION_MAX_AGE_SECONDS old) is this close to the pickup: the passenger's free
# waiting, then the waiting charge, run from it. Wider than a no-show's: an airport or
# station pickup point is often a car park's length from where the car may stop.
ARRIVED_MAX_DISTANCE_M = env.int("ARRIVED_MAX_DISTANCE_M", default=1000)
# A driver app token stops authenticating this long after its login (drivers.tokens);
# each login issues a new one, and a password change or log-out ends it at once.
DRIVER_TOKEN_MAX_AGE_HOURS = env.int("DRIVER_TOKEN_MAX_AGE_HOURS", default=24 * 30)

# --- Billing (issue 7): flat weekly subscription instead of commission (seed section 8) --
SUBSCRIPTION_WEEKLY_FEE_GBP = Decimal(env("SUBSCRIPTION_WEEKLY_FEE_GBP", default="20.00"))
# The fee applies only once a week's earnings pass this (exactly 500.00 is free).
SUBSCRIPTION_FREE_EARNINGS_THRESHOLD_GBP = Decimal("500.00")
# Later fee schedules (billing.fees), each from a date: a JSON list of {"effectiveFrom":
# "YYYY-MM-DD", "weeklyFeeGBP"?, "freeBelowGBP"?, "smsUnitGBP"?}. Weeks before a change
# keep the rule they were invoiced under, late payment records included.
FEE_SCHEDULES = env.json("FEE_SCHEDULES", default=[])
SMS_PASS_THROUGH_GBP = Decimal("0.02")
DRIVER_TRIAL_DAYS = 90
PARTNER_TRIAL_DAYS = 30
BILLING_PAYMENT_DUE_DAYS = 7
# A payment record that arrives after its week was invoiced is billed as an adjustment on
# the driver's next invoice; each weekly run looks at records that arrived this far back.
BILLING_LATE_RECORDS_LOOKBACK_DAYS = env.int("BILLING_LATE_RECORDS_LOOKBACK_DAYS", default=21)
BILLING_COLLECTION_BACKEND = env(
    "BILLING_COLLECTION_BACKEND", default="billing.collection.ManualCollection"
)
# Stripe (issue 36), with BILLING_COLLECTION_BACKEND="billing.collection.StripeCollection".
# Keys only from the environment; STRIPE_API_BASE points the client (and Stripe.js) at
# another server, e.g. localstripe in tests and `make demo`. `check --deploy` refuses a
# live key without STRIPE_WEBHOOK_SECRET (billing.checks).
STRIPE_SECRET_KEY = env("STRIPE_SECRET_KEY", default="")
STRIPE_PUBLISHABLE_KEY = env("STRIPE_PUBLISHABLE_KEY", default="")
STRIPE_WEBHOOK_SECRET = env("STRIPE_WEBHOOK_SECRET", default="")
STRIPE_API_BASE = env("STRIPE_API_BASE", default="")
# Ways to pay a driver may add: cards on our page with Stripe Elements; Bacs Direct Debit
# on Stripe Checkout in setup mode (Stripe's own mandate pages).
STRIPE_PAYMENT_METHOD_TYPES = env.list(
    "STRIPE_PAYMENT_METHOD_TYPES", default=["card", "bacs_debit"]
)
STRIPE_TIMEOUT_SECONDS = 20
# A declined weekly charge is tried again this many days after each failure (then no more;
# the driver can pay by hand from the invoice page or change the way of paying).
BILLING_PAYMENT_RETRY_DAYS = [
    int(d) for d in env.list("BILLING_PAYMENT_RETRY_DAYS", default=["2", "4", "7"])
]
# What follows a driver who stays unpaid: a reminder with every failed attempt, then new
# offers paused (the subscription suspended) once this many weekly invoices are failed.
# 0 switches the pause off. Shown to the driver on the subscription page.
BILLING_UNPAID_WEEKS_BEFORE_PAUSE = env.int("BILLING_UNPAID_WEEKS_BEFORE_PAUSE", default=2)
# A provider payment with no known outcome this long after it was sent is asked about
# (billing.services.payments.payments_reconcile, beat every 15 minutes).
BILLING_RECONCILE_AFTER_MINUTES = env.int("BILLING_RECONCILE_AFTER_MINUTES", default=15)
# UK VAT (issue 36): with VAT_NUMBER set, invoices are VAT invoices of this supplier.
VAT_NUMBER = env("VAT_NUMBER", default="")
BILLING_SUPPLIER_NAME = env("BILLING_SUPPLIER_NAME", default="")
BILLING_SUPPLIER_ADDRESS = env("BILLING_SUPPLIER_ADDRESS", default="")
# The UK standard rate (HMRC, "VAT rates", www.gov.uk/guidance/rates-of-vat-on-different-
# goods-and-services, in force since 4 January 2011).
VAT_RATE_PERCENT = Decimal(env("VAT_RATE_PERCENT", default="20"))
# Whether SUBSCRIPTION_WEEKLY_FEE_GBP already includes VAT (True) or VAT is added to it.
SUBSCRIPTION_FEE_INCLUDES_VAT = env.bool("SUBSCRIPTION_FEE_INCLUDES_VAT", default=True)

# --- AI agents (issue 14): the MCP server at /mcp and its OAuth 2.1 server ----------------
# Tokens are bound to {connected domain}/mcp (RFC 8707); scopes are what a tool needs.
OAUTH2_PROVIDER = {
    "SCOPES": {
        "quotes": "See prices and service information",
        "bookings": "Book, look up and cancel rides in your name",
    },
    "DEFAULT_SCOPES": ["quotes"],
    "PKCE_REQUIRED": True,
    "ALLOWED_REDIRECT_URI_SCHEMES": ["https", "http"],  # http: RFC 8252 loopback clients
    "ALLOW_LOCALHOST_LOOPBACK": True,
    "ACCESS_TOKEN_EXPIRE_SECONDS": env.int("OAUTH_ACCESS_TOKEN_SECONDS", default=3600),
    "REFRESH_TOKEN_EXPIRE_SECONDS": env.int("OAUTH_REFRESH_TOKEN_SECONDS", default=30 * 86400),
    "REFRESH_TOKEN_REUSE_PROTECTION": True,
    "AUTHORIZATION_CODE_EXPIRE_SECONDS": 120,
    "OAUTH2_RESPONSE_TYPES_SUPPORTED": ["code"],
    "OAUTH2_GRANT_TYPES_SUPPORTED": ["authorization_code", "refresh_token"],
    "OAUTH2_TOKEN_ENDPOINT_AUTH_METHODS_SUPPORTED": [
        "none",
        "client_secret_post",
        "client_secret_basic",
    ],
    # RFC 9700 (OAuth 2.0 Security BCP): every behaviour gate on. PKCE S256 only, no
    # implicit or password grant, no tokens in query strings, RFC 9207 ``iss`` on the
    # authorization response, tokens stored hashed.
    "COMPLIANT_BCP_RFC9700_IMPLICIT_GRANT": True,
    "COMPLIANT_BCP_RFC9700_PASSWORD_GRANT": True,
    "COMPLIANT_BCP_RFC9700_PKCE_METHOD": True,
    "COMPLIANT_BCP_RFC9700_ACCESS_TOKEN_TRANSPORT": True,
    "COMPLIANT_BCP_RFC9700_AUTHZ_RESPONSE_ISS": True,
    "COMPLIANT_BCP_RFC9700_TOKEN_STORAGE": True,
    "COMPLIANT_BCP_RFC9700_REFRESH_TOKEN": True,
    "COMPLIANT_BCP_RFC9700_REDIRECT_URI_MATCHING": True,
    "COMPLIANT_BCP_RFC9700_PKCE_REQUIRED": True,
    # Agents register themselves: RFC 7591 dynamic registration (open, as MCP clients
    # expect) and client ID metadata documents (an https URL as the client_id).
    "DCR_ENABLED": True,
    "DCR_REGISTRATION_PERMISSION_CLASSES": ("oauth2_provider.dcr.AllowAllDCRPermission",),
    "CIMD_ENABLED": True,
    "OAUTH2_PROTECTED_RESOURCE_NAME": "Direct-to-Driver taxi booking (MCP)",
}
# Native MCP clients (desktop apps, CLIs) receive the authorization code on an http
# loopback redirect (RFC 8252 s7.3), so "http" stays allowed for redirect URIs and DOT's
# RFC 9700 warning about it is acknowledged here; every other RFC 9700 gate is on.
SILENCED_SYSTEM_CHECKS = ["oauth2_provider.W008"]
# A confirmation token from start_booking's preview is good this long (and never past the
# quote's own expiry).
AGENT_CONFIRMATION_TTL_SECONDS = env.int("AGENT_CONFIRMATION_TTL_SECONDS", default=30 * 60)
AGENT_SIGN_IN_CODE_TTL_SECONDS = 10 * 60
AGENT_SIGN_IN_CODE_MAX_ATTEMPTS = 5
# The MCP server answers from several worker processes: legacy (2025) clients are served
# statelessly too, so no session is tied to one process.
MCP_PATH = "/mcp"

# --- Operating the service (issue 25, contract 10.1) -----------------------------------
# Request ids: operations.request_ids (first in MIDDLEWARE) echoes a caller's X-Request-ID
# that is 1-200 of [A-Za-z0-9._-], else makes a new one.
# How config.asgi serves Django's own requests (everything but /mcp): "wsgi" (Django's
# WSGI handler on ASGI_DJANGO_THREADS threads per process, a2wsgi) or "asgi" (Django's
# ASGI handler). Chosen by measurement: README "Serving".
ASGI_DJANGO_HANDLER = env("ASGI_DJANGO_HANDLER", default="wsgi")
ASGI_DJANGO_THREADS = env.int("ASGI_DJANGO_THREADS", default=8)
# Seconds a client has to send a request's whole body (issue 35, api.request_bodies): the
# ASGI processes (mcp, ingest) read it in the event loop and answer 400 invalid_body after
# this; the proxy (deploy/Caddyfile, read_body) reads the same variable.
REQUEST_BODY_TIMEOUT_SECONDS = env.int("REQUEST_BODY_TIMEOUT_SECONDS", default=10)
# Threads per ingest process that answer reports (drivers.api.ingest_asgi).
INGEST_THREADS = env.int("INGEST_THREADS", default=4)
# Every 503 (a backing service down, /readyz failing) says when to try again.
SERVICE_UNAVAILABLE_RETRY_AFTER_SECONDS = env.int("SERVICE_UNAVAILABLE_RETRY_AFTER", default=5)
# /metrics answers only "Authorization: Bearer <METRICS_TOKEN>"; unset, it is 404.
METRICS_TOKEN = env("METRICS_TOKEN", default="")
METRICS_DISPATCH_LATENCY_WINDOW_MINUTES = env.int(
    "METRICS_DISPATCH_LATENCY_WINDOW_MINUTES", default=15
)
METRICS_DISPATCH_LATENCY_SAMPLE_MAX = 5000
METRICS_BROKER_TIMEOUT_SECONDS = 2.0
# json (one object a line; production's default) or console (key=value; local default).
LOG_FORMAT = env("LOG_FORMAT", default="console")
LOG_LEVEL = env("LOG_LEVEL", default="INFO")
LOGGING = logging_config(LOG_FORMAT, LOG_LEVEL)

# Personal data (issue 39, contract 11): how long each kind of record is kept. The schedule
# that reads these, with each period's purpose and lawful basis, is privacy.schedule; the
# privacy notice and the retention job read it. Bookings: the pickup authority's
# record-keeping period where privacy/data/booking_record_periods.json knows it, otherwise
# this default (12 months: the top of the 6-12 months most councils set, and TfL's).
PRIVACY_BOOKING_RECORD_DEFAULT_MONTHS = env.int("PRIVACY_BOOKING_RECORD_DEFAULT_MONTHS", default=12)
PRIVACY_POSITION_TRAIL_DAYS = env.int("PRIVACY_POSITION_TRAIL_DAYS", default=30)
PRIVACY_MESSAGE_LOG_DAYS = env.int("PRIVACY_MESSAGE_LOG_DAYS", default=90)
PRIVACY_EMAIL_CODE_DAYS = env.int("PRIVACY_EMAIL_CODE_DAYS", default=1)
PRIVACY_UNCONFIRMED_PASSENGER_DAYS = env.int("PRIVACY_UNCONFIRMED_PASSENGER_DAYS", default=30)
PRIVACY_WEBHOOK_DELIVERY_DAYS = env.int("PRIVACY_WEBHOOK_DELIVERY_DAYS", default=30)
PRIVACY_OAUTH_EXPIRED_DAYS = env.int("PRIVACY_OAUTH_EXPIRED_DAYS", default=7)
PRIVACY_SCREENING_DAYS = env.int("PRIVACY_SCREENING_DAYS", default=90)
PRIVACY_STAFF_VIEW_DAYS = env.int("PRIVACY_STAFF_VIEW_DAYS", default=730)
PRIVACY_DATA_REQUEST_DAYS = env.int("PRIVACY_DATA_REQUEST_DAYS", default=730)
# A fare table from the trade that staff rejected, with its photo (pricing.submissions).
PRIVACY_REJECTED_TABLE_DAYS = env.int("PRIVACY_REJECTED_TABLE_DAYS", default=90)
# HMRC: business records for 6 years.
PRIVACY_INVOICE_YEARS = 6
# Server logs are kept by the log platform; the deployment sets it to this.
PRIVACY_LOG_DAYS = env.int("PRIVACY_LOG_DAYS", default=14)
# A request is answered within one month (UK GDPR article 12(3)); its emailed link works
# this many hours; at most this many links a day go to one address.
PRIVACY_REQUEST_ANSWER_MONTHS = 1
PRIVACY_REQUEST_LINK_HOURS = 24
PRIVACY_REQUESTS_PER_EMAIL_PER_DAY = 3
# Rows per transaction in the retention job: each batch locks only its own rows, briefly.
PRIVACY_RETENTION_BATCH = env.int("PRIVACY_RETENTION_BATCH", default=500)
# On PostgreSQL a retention statement is cancelled (and its batch retried in halves) after
# this long, so the job never holds row locks on live tables for longer (issue 39).
PRIVACY_RETENTION_LOCK_MS = env.int("PRIVACY_RETENTION_LOCK_MS", default=800)
