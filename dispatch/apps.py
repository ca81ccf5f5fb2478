from django.apps import AppConfig


class DispatchConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "dispatch"

    def ready(self) -> None:
        from bookings.signals import booking_event_committed
        from dispatch.receivers import booking_event_dispatch

        booking_event_committed.connect(
            booking_event_dispatch, dispatch_uid="dispatch.booking_event_dispatch"
        )
