"""Signals the pricing app sends once a transaction has committed.

Pricing is a leaf (import-linter ``pricing-leaf``): it imports no other app, so the apps
that act on a tariff change connect their receivers in their own ``AppConfig.ready``
(``PartnersConfig``: every connected dispatch platform receives tariff.updated).
"""

from django.dispatch import Signal

# Sent with ``publication`` (a TariffPublication) after the transaction that recorded a
# new version of a council tariff or operator rate commits (pricing.publication).
tariff_published = Signal()
