"""Notification backends for job cards (seed 6.1): console locally, Twilio in production.

``settings.NOTIFICATION_BACKEND`` is ``"console"``, ``"twilio"`` or the dotted path of a
class with the same ``send`` method.
"""

from __future__ import annotations

import sys
import uuid

from django.conf import settings
from django.utils.module_loading import import_string

from dispatch.models import NotificationChannel


class JobCardSendError(Exception):
    """The provider did not take the message; the sending task retries with backoff."""


class ConsoleJobCardBackend:
    """Prints job cards; what runs locally and in tests unless Twilio is configured."""

    def send(self, *, channel: str, to: str, body: str) -> str:
        sys.stdout.write(f"--- job card by {channel} to {to} ---\n{body}\n---\n")
        return f"console-{uuid.uuid4().hex[:24]}"


def twilio_http_client():
    """The HTTP client the Twilio SDK uses; None means its own requests-based client.

    Tests replace this to record the exact requests the real SDK sends.
    """


class TwilioJobCardBackend:
    """SMS and WhatsApp through the official ``twilio`` client (Programmable Messaging)."""

    def __init__(self, http_client=None) -> None:
        from twilio.rest import Client

        self.client = Client(
            settings.TWILIO_ACCOUNT_SID,
            settings.TWILIO_AUTH_TOKEN,
            http_client=http_client if http_client is not None else twilio_http_client(),
        )

    def send(self, *, channel: str, to: str, body: str) -> str:
        from twilio.base.exceptions import TwilioException

        if channel == NotificationChannel.WHATSAPP:
            to = _whatsapp_address(to)
            from_ = _whatsapp_address(settings.TWILIO_WHATSAPP_FROM)
        else:
            from_ = settings.TWILIO_SMS_FROM
        try:
            message = self.client.messages.create(to=to, from_=from_, body=body)
        except TwilioException as exc:
            raise JobCardSendError(str(exc)[:300]) from exc
        return message.sid


def _whatsapp_address(number: str) -> str:
    return number if number.startswith("whatsapp:") else f"whatsapp:{number}"


def job_card_backend():
    name = settings.NOTIFICATION_BACKEND
    if name == "console":
        return ConsoleJobCardBackend()
    if name == "twilio":
        return TwilioJobCardBackend()
    return import_string(name)()
