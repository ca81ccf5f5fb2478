from django.apps import AppConfig


class ReferenceConfig(AppConfig):
    name = "bench.reference"
    label = "reference"
    default_auto_field = "django.db.models.BigAutoField"
