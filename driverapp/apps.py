from django.apps import AppConfig


class DriverAppConfig(AppConfig):
    """The driver's doors: the driver app's API (contract 6) and the pages under
    ``driver/``. The use cases stay in their domain apps (drivers, dispatch, billing)."""

    default_auto_field = "django.db.models.BigAutoField"
    name = "driverapp"
