from django.apps import AppConfig


class DispatchConfig(AppConfig):
    """dispatch.receivers.booking_event_dispatch is connected by bookings.signals, which
    names every subscriber of booking events."""

    default_auto_field = "django.db.models.BigAutoField"
    name = "dispatch"
