"""The embedded default (`make demo`: SQLite, tasks in-process, no Redis, no beat) keeps
dispatching for as long as it runs (issue 23).

Ten minutes of the demo are fast-forwarded one second at a time (time-machine). Each
second does what the demo's dispatcher process does on its one-second poll
(``manage.py run_demo_dispatcher``): hand over waiting bookings, then its chores (the
periodic tasks, offer timeouts first, and the demo drivers' presence).
"""

from __future__ import annotations

from datetime import timedelta

import pytest
import time_machine
from django.core.management import call_command
from django.utils import timezone

from bookings.models import BookingStatus
from bookings.services import BookingDraft, PassengerDetails, booking_create
from dispatch.models import Offer, OfferStatus
from dispatch.periodic import DispatcherChores
from dispatch.relay import bookings_dispatch_claim_all
from drivers.demo import DemoPresence, demo_licence_number
from drivers.models import Driver

pytestmark = pytest.mark.django_db(transaction=True)

DEMO_MINUTES = 10


def _book(pickup: str, dropoff: str):
    from pricing.services import quote_price

    depart = timezone.now() + timedelta(minutes=10)
    priced = quote_price(
        pickup=pickup, dropoff=dropoff, passengers=1, vehicle_type="saloon", depart_at=depart
    )
    draft = BookingDraft(
        source="website",
        pickup_time=depart,
        passenger=PassengerDetails(
            name="Pat Lee", email="pat@example.co.uk", phone="+447911123456"
        ),
    )
    return booking_create(draft=draft, priced=priced)


def _demo_driver(index: int) -> Driver:
    return Driver.objects.get(licence_number=demo_licence_number(index))


def test_ten_minutes_of_the_demo_expire_offers_on_time_and_keep_its_drivers(settings):
    settings.DISPATCH_OFFER_TIMEOUT_SECONDS = 60
    settings.DISPATCH_DRIVER_SEEN_WITHIN_SECONDS = 300
    with time_machine.travel(timezone.now(), tick=False) as traveller:
        # given the demo as `make demo` starts it: seeded, and its dispatcher running
        call_command("seed_demo", stdout=open("/dev/null", "w"))  # noqa: SIM115
        chores = DispatcherChores(periodic=True, also=(DemoPresence(),))
        joe, sam = _demo_driver(11), _demo_driver(6)  # York's two drivers

        def demo_second() -> None:
            traveller.shift(timedelta(seconds=1))
            bookings_dispatch_claim_all()
            chores()

        for _ in range(7):  # the demo has been up a few seconds, out of step with any sweep
            demo_second()
        # when a passenger books from Tadcaster, between Leeds and York, and nobody answers
        booking = _book("Tadcaster", "Wetherby")
        first = Offer.objects.get(booking=booking)
        assert (first.driver_id, first.status) == (sam.pk, OfferStatus.OPEN)  # the nearer
        for _ in range(DEMO_MINUTES * 60):
            demo_second()
            first.refresh_from_db()
            if first.status != OfferStatus.OPEN:
                break
        # then the offer expired within the pass after its deadline, not half a minute late
        assert first.status == OfferStatus.EXPIRED
        assert first.expires_at <= first.responded_at <= first.expires_at + timedelta(seconds=1)
        # and the next demo driver (York's second) was offered the job at once
        second = Offer.objects.get(booking=booking, status=OfferStatus.OPEN)
        assert second.driver_id == joe.pk
        assert second.created_at == first.responded_at

        # when the rest of the ten minutes pass
        started = first.created_at
        while timezone.now() < started + timedelta(minutes=DEMO_MINUTES):
            demo_second()
        # then that booking ran out of drivers and said so, and nobody is left blocked
        booking.refresh_from_db()
        assert booking.status == BookingStatus.NO_DRIVER
        assert not Offer.objects.filter(status=OfferStatus.OPEN).exists()
        # and a driver seeded at the start, long past the five minutes a driver's app has
        # to report in, is still offered a booking near them
        late = _book("York station", "York Minster")
        [offer] = Offer.objects.filter(booking=late)
        assert (offer.driver_id, offer.status) == (sam.pk, OfferStatus.OPEN)


def test_without_the_demo_chores_the_seeded_drivers_drop_out(settings):
    # The control for the test above: the same ten minutes with no presence kept.
    settings.DISPATCH_DRIVER_SEEN_WITHIN_SECONDS = 300
    with time_machine.travel(timezone.now(), tick=False) as traveller:
        call_command("seed_demo", stdout=open("/dev/null", "w"))  # noqa: SIM115
        traveller.shift(timedelta(minutes=DEMO_MINUTES))
        late = _book("York station", "York Minster")
        assert not Offer.objects.filter(booking=late).exists()
        late.refresh_from_db()
        assert late.status == BookingStatus.NO_DRIVER
