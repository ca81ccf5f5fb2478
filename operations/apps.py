from django.apps import AppConfig


class OperationsConfig(AppConfig):
    """Operations sits on top (import-linter ``operations-on-top``): its metrics, health
    checks and demo seed read the domain apps; its logging kit (core.logs,
    core.request_ids) lives below them, where every app may use it."""

    name = "operations"
    verbose_name = "Operations"

    def ready(self) -> None:
        # Request ids travel into Celery tasks in a message header: core.request_ids
        # connects Celery's publish and run signals when it is imported, in every process.
        from core import request_ids  # noqa: F401
