"""Signal receivers: booking events fan out to the sender's webhook (contract 5.1)."""

from __future__ import annotations

from django.db import transaction

from partners.services.webhooks import webhook_delivery_create


def booking_event_webhook_enqueue(sender, event, **kwargs) -> None:
    """Runs after the event's transaction committed (bookings.signals)."""
    delivery = webhook_delivery_create(event=event)
    if delivery is None:
        return
    from partners.tasks import webhook_delivery_send

    delivery_id = delivery.pk
    # Robust: a broker outage must not fail the caller; the row is due now and the
    # periodic task sends it anyway.
    transaction.on_commit(lambda: webhook_delivery_send.delay(delivery_id), robust=True)
