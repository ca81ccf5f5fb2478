"""Signal receivers: booking events fan out to the sender's webhook (contract 5.1), and
tier-3 job offers go to the partner fleet's webhook (seed 1.3)."""

from __future__ import annotations

from django.db import transaction

from partners.services.webhooks import fleet_offer_delivery_create, webhook_delivery_create


def _delivery_send_on_commit(delivery_id: int) -> None:
    from partners.tasks import webhook_delivery_send

    # Robust: a broker outage must not fail the caller; the row is due now and the
    # periodic task sends it anyway.
    transaction.on_commit(lambda: webhook_delivery_send.delay(delivery_id), robust=True)


def booking_event_webhook_enqueue(sender, event, **kwargs) -> None:
    """Runs after the event's transaction committed (bookings.signals)."""
    delivery = webhook_delivery_create(event=event)
    if delivery is not None:
        _delivery_send_on_commit(delivery.pk)


def fleet_offer_webhook_enqueue(sender, offer, **kwargs) -> None:
    """Runs after the offer's transaction committed (dispatch.signals.fleet_offer_made)."""
    delivery = fleet_offer_delivery_create(offer_id=offer.pk)
    if delivery is not None:
        _delivery_send_on_commit(delivery.pk)
