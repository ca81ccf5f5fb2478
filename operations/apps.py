from django.apps import AppConfig


class OperationsConfig(AppConfig):
    """Operations sits on top (import-linter ``operations-on-top``): its metrics, health
    checks and demo seed read the domain apps; its logging kit lives below them,
    where every app may use it: core.logs, and core.request_ids (the id being served; the
    middleware and Celery hooks that set it, operations.request_ids, only config loads)."""

    name = "operations"
    verbose_name = "Operations"

    def ready(self) -> None:
        # Request ids travel into Celery tasks in a message header (request_ids.py).
        from operations import request_ids  # noqa: F401
