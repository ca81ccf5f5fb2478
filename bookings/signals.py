"""Signals the booking engine sends once a transaction has committed.

Receivers run after commit, so they never see a booking that could still roll back.
Bookings sits below dispatch and partners and does not import them: each subscriber app
connects its own receivers in its ``AppConfig.ready`` (``DispatchConfig``: start, stop and
refresh dispatch; ``PartnersConfig``: the sender's and the fleet's webhooks), so the arrow
points from the subscriber to bookings, where the import contracts can see it.
"""

from django.dispatch import Signal

# Sent with ``event`` (a BookingEvent) after the transaction that recorded it commits.
booking_event_committed = Signal()
