from django.apps import AppConfig


class DispatchConfig(AppConfig):
    """dispatch.receivers.booking_event_dispatch is connected by bookings.signals, which
    names every subscriber of booking events."""

    default_auto_field = "django.db.models.BigAutoField"
    name = "dispatch"

    def ready(self) -> None:
        # Registers dispatch's Celery tasks in every process: its services queue them by
        # name (core.task_queue), since the tasks module imports the services.
        from billing.signals import invoice_payment_failed
        from dispatch import receivers, tasks  # noqa: F401

        # A failed subscription payment is also told by SMS/WhatsApp (issue 36).
        invoice_payment_failed.connect(
            receivers.invoice_payment_failed_tell, dispatch_uid="dispatch-payment-failed"
        )
