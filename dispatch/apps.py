from django.apps import AppConfig


class DispatchConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "dispatch"

    def ready(self) -> None:
        from django.core.signals import request_finished

        from dispatch.handover import handover_after_request

        # dispatch.receivers.booking_event_dispatch is connected by bookings.signals,
        # which names every subscriber of booking events.
        request_finished.connect(handover_after_request, dispatch_uid="dispatch.handover")
