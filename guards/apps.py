from django.apps import AppConfig


class GuardsConfig(AppConfig):
    """Rate limits and prompt-injection screening: policies below the services."""

    default_auto_field = "django.db.models.BigAutoField"
    name = "guards"
