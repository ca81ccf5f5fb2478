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


def cookies() -> list[dict[str, str]]:
    """The cookies the website sets, each with why; none tracks a person across sites."""
    return [
        {
            "name": settings.CSRF_COOKIE_NAME,
            "why": "protects the site's forms against forged submissions (security)",
            "kept": "a year, or until you clear it",
        },
        {
            "name": settings.QUOTE_BROWSER_COOKIE,
            "why": "a random number that counts this browser's quotes against the hourly limit; "
            "it names no one",
            "kept": "until the browser closes",
        },
        {
            "name": settings.SESSION_COOKIE_NAME,
            "why": "keeps drivers, operators and staff signed in; passengers are never signed in",
            "kept": "until signing out, or two weeks",
        },
    ]
