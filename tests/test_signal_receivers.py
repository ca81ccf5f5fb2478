"""Receivers are connected by the app that owns them (issue 38).

A lower app defines a signal and names none of its subscribers; each subscriber app
connects its receivers in its ``AppConfig.ready``. These tests check that every event
still reaches the receivers that act on it, exactly once, and that no lower app names an
upper app's receiver by dotted path, which the import contracts could not see.
"""

from __future__ import annotations

import re
import weakref

import pytest

from billing.signals import invoice_payment_failed
from bookings.signals import booking_event_committed
from core.testing.sources import production_modules
from dispatch.signals import fleet_offer_made
from drivers.signals import driver_became_available
from pricing.signals import tariff_published

# signal -> the receivers that must hear it, and nothing else.
EXPECTED = [
    (
        booking_event_committed,
        {
            "dispatch.receivers.booking_event_dispatch",
            "partners.receivers.booking_event_webhook_enqueue",
        },
    ),
    (driver_became_available, {"dispatch.receivers.driver_available_dispatch"}),
    (tariff_published, {"partners.receivers.tariff_publication_webhook_enqueue"}),
    (fleet_offer_made, {"partners.receivers.fleet_offer_webhook_enqueue"}),
    (invoice_payment_failed, {"dispatch.receivers.invoice_payment_failed_tell"}),
]


def _connected(signal) -> list[str]:
    receivers = [
        receiver() if isinstance(receiver, weakref.ref) else receiver
        for _, receiver, *_ in signal.receivers
    ]
    return sorted(f"{r.__module__}.{r.__name__}" for r in receivers)


@pytest.mark.parametrize(("signal", "names"), EXPECTED)
def test_each_signal_reaches_its_subscribers_once_and_nothing_else(signal, names):
    assert _connected(signal) == sorted(names)


LOWER_APPS = ("bookings", "drivers", "pricing", "billing", "core", "api", "guards")
UPPER_RECEIVERS = re.compile(r"[\"'](dispatch|partners|privacy|agents)\.receivers\.")


def test_no_lower_app_names_an_upper_receiver_by_path():
    offenders = [
        relative
        for relative, text in production_modules()
        if relative.startswith(tuple(f"{app}/" for app in LOWER_APPS))
        and (
            UPPER_RECEIVERS.search(text)
            or relative.endswith("signals.py")
            and "import_string" in text
        )
    ]
    assert offenders == []
