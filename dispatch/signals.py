"""Signals dispatch sends after commit, for other apps to act on."""

from django.dispatch import Signal

# Sent with ``offer`` (dispatch.models.Offer, tier 3) after the offer is committed. The
# partners app delivers it to ``offer.fleet.account`` through the account's webhook; the
# fleet answers through the booking-status hook (contract 5.2), which calls
# dispatch.services.offers.fleet_offer_answer.
fleet_offer_made = Signal()
