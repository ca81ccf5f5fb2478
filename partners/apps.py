from django.apps import AppConfig


class PartnersConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "partners"
    verbose_name = "Partners, operators and suppliers"

    def ready(self) -> None:
        from bookings.signals import booking_event_committed
        from dispatch.signals import fleet_offer_made
        from partners.receivers import booking_event_webhook_enqueue, fleet_offer_webhook_enqueue

        booking_event_committed.connect(
            booking_event_webhook_enqueue, dispatch_uid="partners.booking_event_webhook_enqueue"
        )
        fleet_offer_made.connect(
            fleet_offer_webhook_enqueue, dispatch_uid="partners.fleet_offer_webhook_enqueue"
        )
