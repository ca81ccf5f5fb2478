from django.apps import AppConfig


class DriversConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "drivers"

    def ready(self) -> None:
        from drivers import tokens  # noqa: F401  (connects the log-out and password receivers)
        from drivers.positions import revocations  # noqa: F401  (tells every process)
