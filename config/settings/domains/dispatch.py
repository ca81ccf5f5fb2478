"""The settings the dispatch app reads. Dispatch (issue 5): notifications, offers, re-dispatch, and
airport pickups, waiting and no-shows (issue 15).

Star-imported by ``config.settings.base``; a new dispatch setting goes here.
"""

from config.settings.environment import CELERY_TASK_ALWAYS_EAGER, env

# Notifications: "console" prints job cards; "twilio" sends SMS and WhatsApp for real.
NOTIFICATION_BACKEND = env("NOTIFICATION_BACKEND", default="console")
TWILIO_ACCOUNT_SID = env("TWILIO_ACCOUNT_SID", default="")
TWILIO_AUTH_TOKEN = env("TWILIO_AUTH_TOKEN", default="")
TWILIO_SMS_FROM = env("TWILIO_SMS_FROM", default="")
TWILIO_WHATSAPP_FROM = env("TWILIO_WHATSAPP_FROM", default="")
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
