from django.apps import AppConfig


class PricingConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "pricing"
    verbose_name = "Pricing: tariffs and quotes"

    def ready(self) -> None:
        # Connects the signals that invalidate compiled tariffs when a band changes.
        from pricing import catalogue  # noqa: F401
