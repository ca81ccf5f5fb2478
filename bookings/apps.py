from django.apps import AppConfig


class BookingsConfig(AppConfig):
    """Its signals (bookings.signals) are connected by the apps that subscribe to them."""

    default_auto_field = "django.db.models.BigAutoField"
    name = "bookings"
