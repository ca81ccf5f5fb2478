from django.apps import AppConfig


class BookingsConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "bookings"

    def ready(self) -> None:
        from bookings.signals import booking_event_subscribers_connect

        booking_event_subscribers_connect()
