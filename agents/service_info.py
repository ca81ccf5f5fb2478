"""What the service offers, as an agent needs it before quoting (MCP ``get_service_info``).

Every fact is read from where the API itself takes it: vehicle classes and seats from
``pricing.vehicles``, limits and fees from settings, coverage from the tariffs loaded in
the database, payment methods from the booking service. Nothing here is typed twice.
"""

from __future__ import annotations

from django.conf import settings
from django.db.models import Count, Min

from billing.fees import fee_schedule_current
from bookings.services import PAYMENT_METHOD_ALIASES
from pricing.models import Tariff, TariffLifecycle
from pricing.vehicles import MAX_PASSENGERS, SEATS, VehicleType


def _per_hour(rate: str) -> dict:
    count, _, period = rate.partition("/")
    return {
        "count": int(count),
        "per": {"s": "second", "m": "minute", "h": "hour", "d": "day"}.get(period[-1:], period),
    }


def _coverage() -> dict:
    tariffs = Tariff.objects.filter(is_active=True, lifecycle=TariffLifecycle.CURRENT)
    by_kind = dict(tariffs.values_list("kind").annotate(n=Count("id")).order_by())
    authorities = (
        tariffs.filter(kind="council")
        .values("authority")
        .annotate(since=Min("effective_from"))
        .order_by("authority")
    )
    return {
        "country": "GB",
        "summary": (
            f"Journeys starting anywhere in the UK; fares follow the council tariff of "
            f"{by_kind.get('council', 0)} licensing authorities loaded here, or a licensed "
            "operator's approved rate. Journeys outside the UK only with worldwide pricing."
        ),
        "tariffCounts": by_kind,
        "councils": [row["authority"] for row in authorities],
    }


def service_info_get() -> dict:
    """The body of ``get_service_info``: coverage, vehicle classes, fees, limits, payment."""
    site = settings.SITE_URL
    labels = dict(VehicleType.choices)
    fees = fee_schedule_current()
    return {
        "name": "Direct-to-Driver taxi booking",
        "description": (
            "A zero-commission taxi network: passengers book licensed drivers directly, at "
            "regulated council tariffs or an operator's approved rate. Built for AI agents "
            "and partner platforms as well as the website."
        ),
        "coverage": _coverage(),
        "vehicleClasses": [
            {"vehicleType": name, "label": labels[name], "seats": seats}
            for name, seats in SEATS.items()
        ],
        "passengers": {"min": 1, "max": MAX_PASSENGERS},
        "fees": {
            "commissionPercent": 0,
            "passengerFareSource": "council tariff or the operator's approved rate, no mark-up",
            "meetAndGreetGBP": float(settings.PRICING_MEET_AND_GREET_GBP),
            "driverWeeklySubscriptionGBP": float(fees.weekly_fee),
            "driverSubscriptionFreeBelowWeeklyEarningsGBP": float(fees.free_earnings_threshold),
            "driverTrialDays": fees.driver_trial_days,
            "smsPassThroughGBP": float(fees.sms_unit),
        },
        "payment": {
            "takenByService": False,
            "howThePassengerPays": (
                "The passenger pays the driver directly (cash, card to the driver, or the "
                "driver's own payment link on the booking's payDriverUrl). The service never "
                "takes payment and never asks for card details."
            ),
            "paymentMethods": sorted(PAYMENT_METHOD_ALIASES),
        },
        "limits": {
            "quoteValidityHours": settings.PRICING_QUOTE_TTL_HOURS,
            "quoteRequests": _per_hour(settings.RATELIMITS["quote_v1"]),
            "bookingRequests": _per_hour(settings.RATELIMITS["booking"]),
            "bookingsPerPassengerEmail": _per_hour(settings.RATELIMITS["booking_per_email"]),
            "priceChecksPerUnconfirmedEmail": _per_hour(settings.RATELIMITS["unconfirmed_email"]),
            "confirmationTokenMinutes": settings.AGENT_CONFIRMATION_TTL_SECONDS // 60,
        },
        "howToBook": (
            "1. estimate_fare for the journey. 2. start_booking with the journey (or the "
            "quoteId) and the passenger's name, email, mobile and payment method: it returns a "
            "preview and a confirmationToken. 3. Show the preview to the passenger and get "
            "their yes. 4. start_booking again with the same arguments plus confirmationToken: "
            "it books once; repeating it returns the same booking."
        ),
        "cancellation": (
            "cancel_booking with the booking reference and the passenger's email, any time "
            "before the passenger is on board; cancelling twice is harmless. No cancellation "
            "fee is charged by the service."
        ),
        "links": {
            "website": f"{site}/",
            "openapi": f"{site}/api/public/v1/openapi.json",
        },
    }
