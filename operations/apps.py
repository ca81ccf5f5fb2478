from django.apps import AppConfig


class OperationsConfig(AppConfig):
    name = "operations"
    verbose_name = "Operations"

    def ready(self) -> None:
        # Request ids travel into Celery tasks in a message header (request_ids.py).
        from operations import request_ids  # noqa: F401
