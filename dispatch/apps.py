from django.apps import AppConfig


class DispatchConfig(AppConfig):
    """Dispatch connects its own receivers to the signals of the apps below it."""

    default_auto_field = "django.db.models.BigAutoField"
    name = "dispatch"

    def ready(self) -> None:
        from billing.signals import invoice_payment_failed
        from bookings.signals import booking_event_committed

        # Registers dispatch's Celery tasks in every process: its services queue them by
        # name (core.task_queue), since the tasks module imports the services.
        from dispatch import receivers, tasks  # noqa: F401
        from drivers.signals import driver_became_available

        # booking.created on the network queue starts dispatch; a booking that ends
        # (completed, cancelled, no-show) withdraws its offer and frees its driver.
        booking_event_committed.connect(
            receivers.booking_event_dispatch, dispatch_uid="dispatch.booking_event_dispatch"
        )
        # A booking nobody could take (no_driver) is offered again near that driver.
        driver_became_available.connect(
            receivers.driver_available_dispatch, dispatch_uid="dispatch.driver_available_dispatch"
        )
        # A failed subscription payment is also told by SMS/WhatsApp (issue 36).
        invoice_payment_failed.connect(
            receivers.invoice_payment_failed_tell, dispatch_uid="dispatch-payment-failed"
        )
