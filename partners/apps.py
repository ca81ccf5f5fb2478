from django.apps import AppConfig


class PartnersConfig(AppConfig):
    """Partners connects its own receivers to the signals of the apps below it."""

    default_auto_field = "django.db.models.BigAutoField"
    name = "partners"
    verbose_name = "Partners, operators and suppliers"

    def ready(self) -> None:
        from bookings.signals import booking_event_committed
        from dispatch.signals import fleet_offer_made

        # Registers partners' Celery tasks in every process: its services queue them by
        # name (core.task_queue), since the tasks module imports the services.
        from partners import receivers, tasks  # noqa: F401
        from pricing.signals import tariff_published

        # Every event goes to the webhook of the account that sent the booking (contract 5.1).
        booking_event_committed.connect(
            receivers.booking_event_webhook_enqueue,
            dispatch_uid="partners.booking_event_webhook_enqueue",
        )
        fleet_offer_made.connect(
            receivers.fleet_offer_webhook_enqueue,
            dispatch_uid="partners.fleet_offer_webhook_enqueue",
        )
        # Every connected dispatch platform receives tariff.updated (contract 5.3).
        tariff_published.connect(
            receivers.tariff_publication_webhook_enqueue,
            dispatch_uid="partners.tariff_publication_webhook_enqueue",
        )
