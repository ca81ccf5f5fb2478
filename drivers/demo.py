"""The demo fleet that ``manage.py seed_demo`` creates, and its stand-in for their phones.

A driver counts as available only while their app keeps reporting
(``DISPATCH_DRIVER_SEEN_WITHIN_SECONDS``, 5 minutes); the demo drivers have no phones, so
``make demo`` runs the dispatcher as ``manage.py run_demo_dispatcher``, which refreshes
the presence of the demo drivers who are online, as their apps would (``DemoPresence``);
the production dispatcher (``run_dispatcher``) knows nothing of it. A demo driver who goes offline in the
driver app stays offline: only ``last_seen_at`` of online demo drivers is touched.
"""

from __future__ import annotations

from datetime import datetime

from django.utils import timezone

from drivers.models import Driver
from drivers.services import driver_position_index

# Licence numbers of the demo drivers: DEMO-0001, DEMO-0002, ... in roster order.
DEMO_LICENCE_PREFIX = "DEMO-"

DEMO_DRIVERS = [
    # name, city, lat, lng, authority, vehicle (make, model, colour, class, seats, wav)
    (
        "Asha Khan",
        "Leeds",
        53.7997,
        -1.5492,
        "Leeds City Council",
        ("Toyota", "Corolla", "Silver", "saloon", 4, False),
    ),
    (
        "Tom Price",
        "Leeds",
        53.8008,
        -1.5491,
        "Leeds City Council",
        ("LEVC", "TX", "Black", "wav", 5, True),
    ),
    (
        "Priya Shah",
        "Manchester",
        53.4808,
        -2.2426,
        "Manchester City Council",
        ("Skoda", "Octavia", "Blue", "estate", 4, False),
    ),
    (
        "Dan Roberts",
        "London",
        51.5074,
        -0.1278,
        "Transport for London",
        ("Mercedes", "E-Class", "Black", "executive", 4, False),
    ),
    (
        "Nina Evans",
        "Brighton",
        50.8225,
        -0.1372,
        "Brighton & Hove City Council",
        ("Ford", "Galaxy", "Grey", "mpv", 7, False),
    ),
    (
        "Sam Okafor",
        "York",
        53.9590,
        -1.0815,
        "City of York Council",
        ("Toyota", "Prius", "White", "saloon", 4, False),
    ),
    # Issue 34: a second driver in each demo town who can take a default booking (a
    # saloon), so that an offer can be seen passing from one driver to the next.
    (
        "Ben Walsh",
        "Leeds",
        53.8040,
        -1.5350,
        "Leeds City Council",
        ("Hyundai", "Ioniq", "Blue", "saloon", 4, False),
    ),
    (
        "Grace Lee",
        "Manchester",
        53.4790,
        -2.2380,
        "Manchester City Council",
        ("Kia", "Niro", "Red", "saloon", 4, False),
    ),
    (
        "Omar Haddad",
        "London",
        51.5100,
        -0.1220,
        "Transport for London",
        ("Toyota", "Corolla", "Grey", "saloon", 4, False),
    ),
    (
        "Ellie Moss",
        "Brighton",
        50.8240,
        -0.1400,
        "Brighton & Hove City Council",
        ("Skoda", "Octavia", "White", "saloon", 4, False),
    ),
    (
        "Joe Clarke",
        "York",
        53.9620,
        -1.0700,
        "City of York Council",
        ("Toyota", "Corolla", "Black", "saloon", 4, False),
    ),
]


def demo_licence_number(index: int) -> str:
    """The licence number of the ``index``-th demo driver (from 1)."""
    return f"{DEMO_LICENCE_PREFIX}{index:04d}"


def demo_drivers_presence_keep(*, now: datetime | None = None) -> int:
    """Mark the online demo drivers as seen now, where they are (what their app's reports
    would do): their rows and the position store's matching index; how many. Never turns
    a driver online."""
    now = now or timezone.now()
    online = Driver.objects.filter(licence_number__startswith=DEMO_LICENCE_PREFIX, online=True)
    online.update(last_seen_at=now)
    drivers = list(online.prefetch_related("vehicles"))
    for driver in drivers:
        driver_position_index(driver=driver, at=now)
    return len(drivers)


# How often the demo dispatcher refreshes the demo drivers' presence (well inside the 5
# minutes after which a driver who has not reported is no longer offered jobs).
DEMO_PRESENCE_EVERY_SECONDS = 60


class DemoPresence:
    """A dispatcher chore (``dispatch.periodic.DispatcherChores``): every
    ``DEMO_PRESENCE_EVERY_SECONDS``, the online demo drivers report in."""

    describe = "keeping the demo drivers present"

    def __init__(self) -> None:
        self._kept_at: datetime | None = None

    def __call__(self, *, now: datetime) -> None:
        if self._kept_at is None or (now - self._kept_at).total_seconds() >= (
            DEMO_PRESENCE_EVERY_SECONDS
        ):
            demo_drivers_presence_keep(now=now)
            self._kept_at = now
