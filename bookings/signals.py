"""Signals the booking engine sends once a transaction has committed.

Dispatch listens for new bookings, partners listen for every event (status webhooks).
Receivers run after commit, so they never see a booking that could still roll back.
"""

from django.dispatch import Signal

# Sent with ``event`` (a BookingEvent) after the transaction that recorded it commits.
booking_event_committed = Signal()
