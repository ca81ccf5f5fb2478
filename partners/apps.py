from django.apps import AppConfig


class PartnersConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "partners"
    verbose_name = "Partners, operators and suppliers"

    def ready(self) -> None:
        from dispatch.signals import fleet_offer_made

        # Registers partners' Celery tasks in every process: its services queue them by
        # name (core.task_queue), since the tasks module imports the services.
        from partners import tasks  # noqa: F401
        from partners.receivers import fleet_offer_webhook_enqueue

        # booking_event_webhook_enqueue is connected by bookings.signals, which names every
        # subscriber of booking events.
        fleet_offer_made.connect(
            fleet_offer_webhook_enqueue, dispatch_uid="partners.fleet_offer_webhook_enqueue"
        )
