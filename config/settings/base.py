"""Settings shared by every configuration.

Everything a deployment changes is read from the environment (contract section 10).
Defaults here run with no servers at all: SQLite, local-memory cache, Celery tasks
executed in-process. ``local``, ``test`` and ``production`` adjust from here.
"""

from decimal import Decimal
from pathlib import Path

import environ
from celery.schedules import crontab

BASE_DIR = Path(__file__).resolve().parent.parent.parent

env = environ.Env()

SECRET_KEY = env("SECRET_KEY", default="insecure-local-key-do-not-use-in-production")
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
    "api",
    "partners",
    "pricing",
    "bookings",
    "drivers",
    "dispatch",
    "billing",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "api.idempotency.IdempotencyMiddleware",
]

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
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

REDIS_URL = env("REDIS_URL", default="")
if REDIS_URL:
    CACHES = {
        "default": {
            # django-redis keeps one client per process (Django's own backend builds a new
            # client object for every call), which matters on every rate-limited request.
            "BACKEND": "django_redis.cache.RedisCache",
            "LOCATION": REDIS_URL,
            "KEY_PREFIX": env("CACHE_KEY_PREFIX", default="dtd"),
        },
        # Rate-limit counters only (RATELIMIT_USE_CACHE): the same Redis and prefix, with a
        # client that counts a request in one round trip (api.ratelimit_cache).
        "ratelimit": {
            "BACKEND": "django_redis.cache.RedisCache",
            "LOCATION": REDIS_URL,
            "KEY_PREFIX": env("CACHE_KEY_PREFIX", default="dtd"),
            "OPTIONS": {"CLIENT_CLASS": "api.ratelimit_cache.RateLimitCacheClient"},
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
# Tariff bands and billing weeks are evaluated in UK local time (contract section 1).
TARIFF_TIME_ZONE = "Europe/London"

STATIC_URL = "static/"
STATIC_ROOT = BASE_DIR / "staticfiles"
# Static files are served by WhiteNoise straight from the apps in development and tests.
WHITENOISE_USE_FINDERS = True
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedStaticFilesStorage"},
}

# Bodies larger than this are refused with a problem response (api.problems).
DATA_UPLOAD_MAX_MEMORY_SIZE = env.int("DATA_UPLOAD_MAX_MEMORY_SIZE", default=1024 * 1024)

EMAIL_BACKEND = env("EMAIL_BACKEND", default="django.core.mail.backends.console.EmailBackend")
DEFAULT_FROM_EMAIL = env("DEFAULT_FROM_EMAIL", default="bookings@localhost")

# --- API machinery ---------------------------------------------------------------------

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [],
    "DEFAULT_PERMISSION_CLASSES": [],
    "DEFAULT_RENDERER_CLASSES": ["rest_framework.renderers.JSONRenderer"],
    "DEFAULT_PARSER_CLASSES": ["rest_framework.parsers.JSONParser"],
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
    ],
    "ENUM_NAME_OVERRIDES": {
        "VehicleTypeEnum": "pricing.vehicles.VehicleType",
        "BookingStatusEnum": "bookings.models.BookingStatus",
    },
}

# Rate limits (contract 1.4): "<count>/<period>" with period s, m, h or d. Anonymous calls
# are limited per IP, keyed calls per key (an account may carry its own higher limit).
RATELIMIT_ENABLE = env.bool("RATELIMIT_ENABLE", default=True)
RATELIMIT_USE_CACHE = "ratelimit" if "ratelimit" in CACHES else "default"
# Limits of 2,000 or more per period are counted in blocks of a thousandth of the limit,
# up to this many (api.ratelimit_cache): one Redis round trip per block, not per request.
# 1 counts every request in Redis.
RATELIMIT_COUNT_BLOCK_MAX = env.int("RATELIMIT_COUNT_BLOCK_MAX", default=100)
RATELIMITS = {
    # Stated by the specification (seed section 8): 30 quotes per hour per caller.
    "quote_v1": env("RATELIMIT_QUOTE_V1", default="30/h"),
    "quote_alias": env("RATELIMIT_QUOTE_ALIAS", default="60/h"),
    "booking": env("RATELIMIT_BOOKING", default="30/h"),
    "lookup": env("RATELIMIT_LOOKUP", default="120/h"),
    "intake": env("RATELIMIT_INTAKE", default="600/m"),
    "verify": env("RATELIMIT_VERIFY", default="20/h"),
    "driver": env("RATELIMIT_DRIVER", default="600/m"),
    # Per passenger email, whoever the caller is (seed 7: too many bookings from one email).
    "booking_per_email": env("RATELIMIT_BOOKING_PER_EMAIL", default="20/d"),
    # Seed section 8: 8 price checks per hour for an unconfirmed email.
    "unconfirmed_email": env("RATELIMIT_UNCONFIRMED_EMAIL", default="8/h"),
}

# Verified API keys are remembered per process this long (0: look up every request).
API_KEY_CACHE_SECONDS = env.int("API_KEY_CACHE_SECONDS", default=10)

# Idempotency keys are kept this long (contract 1.3).
IDEMPOTENCY_RETENTION_HOURS = 24

# --- Pricing (issue 3) -----------------------------------------------------------------
# Geocoder and router are swappable: the offline defaults need no network; the
# postcodes.io geocoder resolves full UK postcodes when switched on.
PRICING_GEOCODER = env("PRICING_GEOCODER", default="pricing.geocoding.OfflineGeocoder")
PRICING_ROUTER = env("PRICING_ROUTER", default="pricing.routing.GreatCircleRouter")
PRICING_POSTCODES_IO_URL = env("PRICING_POSTCODES_IO_URL", default="https://api.postcodes.io")
PRICING_GEOCODER_TIMEOUT = env.float("PRICING_GEOCODER_TIMEOUT", default=3.0)
# Road distance = great-circle distance x this factor.
PRICING_ROAD_FACTOR = env.float("PRICING_ROAD_FACTOR", default=1.3)
# (up to miles, average mph): duration from distance bands.
PRICING_SPEED_BANDS = ((2.0, 9.0), (6.0, 11.5), (20.0, 25.0), (60.0, 40.0), (None, 55.0))
PRICING_NIGHT_SPEED_FACTOR = 1.25  # 22:00-06:00 London time: emptier roads
PRICING_METER_CRUISE_MPH = 20  # time below this speed is charged as waiting time
# Fare factor per vehicle class; wav never above saloon (Equality Act 2010 s165).
PRICING_VEHICLE_FACTORS = {
    "saloon": "1.00",
    "estate": "1.10",
    "executive": "1.40",
    "luxury": "1.80",
    "5seater": "1.20",
    "6seater": "1.30",
    "7seater": "1.40",
    "mpv": "1.50",
    "wav": "1.00",
}
PRICING_MEET_AND_GREET_GBP = "25.00"  # seed section 8
PRICING_QUOTE_TTL_HOURS = 24  # seed 2.4
# Other processes see tariff edits within this many seconds (no query per quote).
PRICING_CATALOGUE_CHECK_SECONDS = env.int("PRICING_CATALOGUE_CHECK_SECONDS", default=5)
PRICING_PAST_TOLERANCE_SECONDS = 300  # departAt further in the past is 400 pickup_in_past

BOOKING_REFERENCE_PREFIX = env("BOOKING_REFERENCE_PREFIX", default="DTD")

# Notifications: "console" prints job cards; "twilio" sends SMS and WhatsApp for real.
NOTIFICATION_BACKEND = env("NOTIFICATION_BACKEND", default="console")
TWILIO_ACCOUNT_SID = env("TWILIO_ACCOUNT_SID", default="")
TWILIO_AUTH_TOKEN = env("TWILIO_AUTH_TOKEN", default="")
TWILIO_SMS_FROM = env("TWILIO_SMS_FROM", default="")
TWILIO_WHATSAPP_FROM = env("TWILIO_WHATSAPP_FROM", default="")

WEBHOOK_ALLOW_PRIVATE_NETWORKS = env.bool("WEBHOOK_ALLOW_PRIVATE_NETWORKS", default=False)

# --- Celery ----------------------------------------------------------------------------

CELERY_BROKER_URL = env("CELERY_BROKER_URL", default=REDIS_URL or "memory://")
CELERY_RESULT_BACKEND = None
CELERY_TASK_ALWAYS_EAGER = env.bool("CELERY_TASK_ALWAYS_EAGER", default=not REDIS_URL)
CELERY_TASK_EAGER_PROPAGATES = True
CELERY_TASK_ACKS_LATE = True
# Celery's default. Tasks here are short (tens of ms); at 1, a pool process that finished
# a task waited for the worker to fetch the next message from Redis, and a burst drained
# at 41 bookings/s instead of 72-75 (bench/bench_dispatch_burst.py, same machine, same
# minute). Pool processes are handed reserved tasks only when idle, so a slow task does
# not hold the others back.
CELERY_WORKER_PREFETCH_MULTIPLIER = 4
CELERY_TIMEZONE = "Europe/London"
# Celery's Django fixup closes every database connection before and after each task
# unless this is set; then it closes them once every this many tasks. Reconnecting for
# each task (a PostgreSQL backend started, authenticated, its prepared statements lost)
# cost more than most tasks' own work (bench/bench_dispatch_burst.py).
CELERY_DB_REUSE_MAX = env.int("CELERY_DB_REUSE_MAX", default=100)
CELERY_BEAT_SCHEDULE: dict = {
    # Safety net behind the per-offer countdown: expire offers whose timeout passed.
    "dispatch-offers-expire-overdue": {
        "task": "dispatch.tasks.offers_expire_overdue",
        "schedule": 30.0,
    },
    # Bookings the dispatcher handed over whose task message was lost (a broker restart).
    "dispatch-bookings-overdue": {
        "task": "dispatch.tasks.bookings_dispatch_overdue",
        "schedule": 60.0,
    },
    # Webhook retries due now: long waits are held in the database, not in the broker.
    "partners-webhook-deliveries-due": {
        "task": "partners.tasks.webhook_deliveries_due_send",
        "schedule": 30.0,
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
DISPATCH_HANDOVER_GRACE_SECONDS = env.int("DISPATCH_HANDOVER_GRACE_SECONDS", default=120)
DISPATCH_NATIONAL_PICKUP_RADIUS_KM = 80
DISPATCH_TRAIL_SKIPPED_LIMIT = 25
DISPATCH_OFFER_LINK_MAX_AGE_SECONDS = 1800
# "No driver found" alerts go to these addresses (mail_admins).
ADMINS = [("Dispatch desk", email) for email in env.list("ADMIN_EMAILS", default=[])]
LOGIN_URL = "/driver/login/"

# --- Billing (issue 7): flat weekly subscription instead of commission (seed section 8) --
SUBSCRIPTION_WEEKLY_FEE_GBP = Decimal(env("SUBSCRIPTION_WEEKLY_FEE_GBP", default="20.00"))
# The fee applies only once a week's earnings pass this (exactly 500.00 is free).
SUBSCRIPTION_FREE_EARNINGS_THRESHOLD_GBP = Decimal("500.00")
SMS_PASS_THROUGH_GBP = Decimal("0.02")
DRIVER_TRIAL_DAYS = 90
PARTNER_TRIAL_DAYS = 30
BILLING_PAYMENT_DUE_DAYS = 7
BILLING_COLLECTION_BACKEND = env(
    "BILLING_COLLECTION_BACKEND", default="billing.collection.ManualCollection"
)

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": env("LOG_LEVEL", default="INFO")},
    "loggers": {"django.db.backends": {"level": "INFO"}},
}
