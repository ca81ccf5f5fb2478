"""Signals the drivers app sends once a transaction has committed.

Drivers sits below dispatch and does not import it; dispatch connects its receiver by
path when the apps are ready (``DriversConfig.ready``), named here so that a reader sees
the whole fan-out in one place.
"""

from django.dispatch import Signal
from django.utils.module_loading import import_string

# Sent with ``driver_id`` after commit when a driver becomes available for new jobs: they
# went online, or came back after not being seen for longer than the matcher allows.
driver_became_available = Signal()

DRIVER_AVAILABLE_SUBSCRIBERS: tuple[str, ...] = (
    # A booking nobody could take (no_driver) is offered again near that driver.
    "dispatch.receivers.driver_available_dispatch",
)


def driver_signal_subscribers_connect() -> None:
    for path in DRIVER_AVAILABLE_SUBSCRIBERS:
        driver_became_available.connect(import_string(path), dispatch_uid=path)
