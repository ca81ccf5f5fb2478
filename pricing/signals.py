"""Signals the pricing app sends once a transaction has committed, and their subscribers.

Pricing is a leaf (import-linter ``pricing-leaf``): it imports no other app, so the apps
that act on a tariff change are named here by path and connected when the apps are ready
(``PricingConfig.ready``), as ``bookings.signals`` does for booking events.
"""

from django.dispatch import Signal
from django.utils.module_loading import import_string

# Sent with ``publication`` (a TariffPublication) after the transaction that recorded a
# new version of a council tariff or operator rate commits (pricing.publication).
tariff_published = Signal()

TARIFF_PUBLISHED_SUBSCRIBERS: tuple[str, ...] = (
    # Every connected dispatch platform receives tariff.updated (contract 5.3).
    "partners.receivers.tariff_publication_webhook_enqueue",
)


def tariff_published_subscribers_connect() -> None:
    for path in TARIFF_PUBLISHED_SUBSCRIBERS:
        tariff_published.connect(import_string(path), dispatch_uid=path)
