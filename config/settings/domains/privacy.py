"""The settings the privacy app reads. Personal data (issue 39, contract 11): how long each kind of
record is kept.

Star-imported by ``config.settings.base``; a new privacy setting goes here.
"""

from config.settings.environment import env

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
