"""What the privacy notice lists besides the schedule: the processors that handle personal
data for the service, each named from the setting that turns it on."""

from __future__ import annotations

from django.conf import settings


def processors() -> list[dict[str, str]]:
    return [
        {
            "what": "SMS and WhatsApp messages to drivers (job cards)",
            "who": "Twilio" if settings.NOTIFICATION_BACKEND == "twilio" else "not sent (console)",
        },
        {"what": "Email", "who": "the email provider this service sends through"},
        {
            "what": "Maps and road distances",
            "who": "OpenStreetMap-based services when configured (OSRM, postcodes.io); "
            "otherwise nothing leaves the service",
        },
        {
            "what": "Payments",
            "who": "none for passengers: you pay your driver directly, and we never see card "
            "details; drivers' subscriptions through the payment provider when configured",
        },
    ]
