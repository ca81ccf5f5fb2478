"""Signal receivers: booking events fan out to the sender's webhook and to the partner
fleet holding the job (contract 5.1), tier-3 job offers go to the partner fleet's webhook
(seed 1.3), and new tariff versions go to connected dispatch platforms (contract 5.3)."""

from __future__ import annotations

from django.db import transaction

from partners.intake_formats.tomp.messages import tomp_event_delivery_create
from partners.services.tariff_fanout import tariff_update_deliveries_create
from partners.services.webhooks import (
    fleet_job_delivery_create,
    fleet_offer_delivery_create,
    webhook_delivery_create,
)
from partners.tasks import webhook_delivery_send


def _delivery_send_on_commit(delivery_id: int) -> None:

    # Robust: a broker outage must not fail the caller; the row is due now and the
    # periodic task sends it anyway.
    transaction.on_commit(lambda: webhook_delivery_send.delay(delivery_id), robust=True)


def booking_event_webhook_enqueue(sender, event, **kwargs) -> None:
    """Runs after the event's transaction committed (bookings.signals): the sender's copy
    (in TOMP-API's messages for a TOMP provider), and the holding fleet's copy of the
    events a fleet must hear of (contract 5.1)."""
    for delivery in (
        webhook_delivery_create(event=event),
        tomp_event_delivery_create(event=event),
        fleet_job_delivery_create(event=event),
    ):
        if delivery is not None:
            _delivery_send_on_commit(delivery.pk)


def fleet_offer_webhook_enqueue(sender, offer, **kwargs) -> None:
    """Runs after the offer's transaction committed (dispatch.signals.fleet_offer_made)."""
    delivery = fleet_offer_delivery_create(offer_id=offer.pk)
    if delivery is not None:
        _delivery_send_on_commit(delivery.pk)


def tariff_publication_webhook_enqueue(sender, publication, **kwargs) -> None:
    """Runs after a tariff version's transaction committed (pricing.signals)."""
    for delivery in tariff_update_deliveries_create(publication_id=publication.pk):
        _delivery_send_on_commit(delivery.pk)
