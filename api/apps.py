from django.apps import AppConfig


class ApiConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "api"

    def ready(self) -> None:
        # Registers the OpenAPI security schemes of our authentication classes.
        from api import schema  # noqa: F401
