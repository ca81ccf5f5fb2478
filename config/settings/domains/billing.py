"""The settings the billing app reads. Billing (issue 7): flat weekly subscription instead of
commission (seed section 8).

Star-imported by ``config.settings.base``; a new billing setting goes here.
"""

from decimal import Decimal

from config.settings.environment import env

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
# Benchmark only (bench/bench_billing.py), never in production: several localstripe URLs,
# a driver's calls going to the one its id maps to (billing.provider.api_base).
STRIPE_API_SHARDS = env.list("STRIPE_API_SHARDS", default=[])
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
