"""Signals the drivers app sends once a transaction has committed.

Drivers sits below dispatch and does not import it; dispatch connects its receiver in
``DispatchConfig.ready``.
"""

from django.dispatch import Signal

# Sent with ``driver_id`` after commit when a driver becomes available for new jobs: they
# went online, or came back after not being seen for longer than the matcher allows.
driver_became_available = Signal()
