"""Settings shared by every configuration.

Everything a deployment changes is read from the environment (contract section 10).
Defaults here run with no servers at all: SQLite, local-memory cache, Celery tasks
executed in-process. ``local``, ``test`` and ``production`` adjust from here.
"""

import ipaddress

from celery.schedules import crontab
from kombu import Queue

# CELERY_TASK_ALWAYS_EAGER and REDIS_URL are settings too; their home is shared with the
# domain modules, whose defaults depend on them.
from config.settings.environment import (  # noqa: F401
    BASE_DIR,
    CELERY_TASK_ALWAYS_EAGER,
    REDIS_URL,
    env,
)

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
    "driverapp",
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
    # Binding alone prepares nothing: Django turns psycopg's preparing off unless OPTIONS
    # sets a threshold. With it, a statement a connection has run 5 times is prepared and
    # PostgreSQL stops planning it on every call (issue 41: planning was a third of the
    # server's CPU in a dispatch step). Off (DATABASE_PREPARED_STATEMENTS=false) behind a
    # pooler in transaction mode, which cannot keep a connection's prepared statements.
    if DATABASES["default"]["OPTIONS"]["server_side_binding"] and env.bool(
        "DATABASE_PREPARED_STATEMENTS", default=True
    ):
        DATABASES["default"]["OPTIONS"].setdefault("prepare_threshold", 5)
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

# REDIS_URL: config.settings.environment.
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
# RATELIMIT_COUNT_BLOCK_MAX, QUOTE_BROWSER_COOKIE and RATELIMITS: config.settings.domains.guards.

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

# Fernet keys for secrets stored encrypted (core.encryption; a driver's own maps key): the
# first encrypts, all decrypt. Unset: one key derived from SECRET_KEY.
FIELD_ENCRYPTION_KEYS = env.list("FIELD_ENCRYPTION_KEYS", default=[])

# --- Domain settings, grouped by the app that reads them (config.settings.domains) -------
# In the order they were written here; a new setting goes in its app's module.
# isort: off
from config.settings.domains.guards import *  # noqa: E402, F403
from config.settings.domains.pricing import *  # noqa: E402, F403
from config.settings.domains.bookings import *  # noqa: E402, F403
from config.settings.domains.dispatch import *  # noqa: E402, F403
from config.settings.domains.partners import *  # noqa: E402, F403
from config.settings.domains.drivers import *  # noqa: E402, F403
from config.settings.domains.billing import *  # noqa: E402, F403
from config.settings.domains.agents import *  # noqa: E402, F403
from config.settings.domains.operations import *  # noqa: E402, F403
from config.settings.domains.privacy import *  # noqa: E402, F403

# The authorization server is SITE_URL on every process (web, mcp): its metadata's issuer
# and endpoints, the protected resource's authorization_servers and the authorization
# response's iss. Derived from the request, they named whatever Host the mcp process was
# reached by (issue 35). Here, not in domains.agents, because SITE_URL is set here.
OAUTH2_PROVIDER = {**OAUTH2_PROVIDER, "OIDC_ISS_ENDPOINT": SITE_URL}  # noqa: F405

# isort: on
from config.settings.domains.partners import *  # noqa: E402, F403
from config.settings.domains.partners import DRIVER_LOCATION_TICK_SECONDS  # noqa: E402
from config.settings.domains.pricing import *  # noqa: E402, F403
from config.settings.domains.privacy import *  # noqa: E402, F403

# --- Celery ----------------------------------------------------------------------------

CELERY_BROKER_URL = env("CELERY_BROKER_URL", default=REDIS_URL or "memory://")
CELERY_RESULT_BACKEND = None
# CELERY_TASK_ALWAYS_EAGER (without Redis, tasks run in-process): config.settings.environment.
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
        "schedule": DISPATCH_REDISPATCH_EVERY_SECONDS,  # noqa: F405 (domains.dispatch)
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
        "schedule": DRIVER_LOCATION_TICK_SECONDS,  # noqa: F405 (domains.partners)
        "options": {"expires": DRIVER_LOCATION_TICK_SECONDS},  # noqa: F405
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

# "No driver found" alerts go to these addresses (mail_admins).
ADMINS = [("Dispatch desk", email) for email in env.list("ADMIN_EMAILS", default=[])]
LOGIN_URL = "/driver/login/"

# New settings: a domain rule goes in the module of the app that reads it
# (config/settings/domains/<app>.py), not here; this module keeps the framework's own.
