from django.apps import AppConfig


class BillingConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "billing"
    verbose_name = "Billing: subscriptions and weekly invoices"

    def ready(self) -> None:
        # Registers billing's Celery tasks in every process: its services queue them by
        # name (core.task_queue), since the tasks module imports the services.
        from billing import checks, tasks  # noqa: F401
