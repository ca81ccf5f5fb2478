"""Race safety on PostgreSQL and SQLite: real threads on the same rows (seed 1.3 offers)."""

from __future__ import annotations

import pytest

from bookings.models import Booking, BookingStatus
from bookings.tests.factories import BookingFactory
from core.errors import DomainError
from core.testing.concurrency import race
from core.testing.places import LEEDS, north_of
from dispatch.models import Offer, OfferStatus
from dispatch.services import offers
from drivers.models import Driver
from drivers.tests.factories import driver_at

pytestmark = pytest.mark.django_db(transaction=True)


def test_accept_and_manual_assignment_at_once_have_one_winner():
    # given a booking offered to one driver, and a dispatcher assigning another at that moment
    offered_driver = driver_at(LEEDS)
    other = driver_at(north_of(LEEDS, 30))
    booking = BookingFactory()
    offer = offers.booking_dispatch_next(booking_id=booking.pk)
    results = race(
        *[lambda: offers.offer_accept(offer_id=offer.pk, driver=offered_driver) for _ in range(4)],
        lambda: offers.booking_assign_manual(
            booking_id=booking.pk, driver=other, actor="admin:desk"
        ),
    )
    # then exactly one call won, everyone else was refused with a 409
    winners = [r for r in results if not isinstance(r, DomainError)]
    losers = [r for r in results if isinstance(r, DomainError)]
    assert len(winners) == 1
    assert {p.code for p in losers} <= {"offer_closed", "driver_busy", "invalid_transition"}
    booking.refresh_from_db()
    assert booking.status == BookingStatus.ACCEPTED
    winner_driver = winners[0].driver
    assert booking.driver == winner_driver
    loads = dict(Driver.objects.values_list("pk", "current_jobs"))
    assert loads[winner_driver.pk] == 1
    assert sum(loads.values()) == 1
    assert Offer.objects.filter(booking=booking, status=OfferStatus.ACCEPTED).count() == 1


def test_driver_is_never_double_booked():
    # given a driver with room for one job, offered booking A while the desk assigns booking B
    driver = driver_at(LEEDS, max_jobs=1)
    booking_a, booking_b = BookingFactory(), BookingFactory()
    offer = offers.booking_dispatch_next(booking_id=booking_a.pk)
    assert offer.driver == driver
    results = race(
        lambda: offers.offer_accept(offer_id=offer.pk, driver=driver),
        lambda: offers.booking_assign_manual(booking_id=booking_b.pk, driver=driver, actor="desk"),
    )
    assert sum(not isinstance(r, DomainError) for r in results) == 1
    assert [p.code for p in results if isinstance(p, DomainError)] == ["driver_busy"]
    driver.refresh_from_db()
    assert driver.current_jobs == 1
    assert Booking.objects.filter(driver=driver).count() == 1


def test_burst_dispatch_gives_each_driver_one_card_and_each_booking_one_offer():
    # given ten drivers and twenty bookings dispatched at the same instant
    for km in range(10):
        driver_at(north_of(LEEDS, km))
    bookings = [BookingFactory() for _ in range(20)]
    race(*[lambda b=b: offers.booking_dispatch_next(booking_id=b.pk) for b in bookings])
    open_offers = Offer.objects.filter(status=OfferStatus.OPEN)
    # then ten bookings hold one offer each, to ten different drivers; the rest wait
    assert open_offers.count() == 10
    assert len(set(open_offers.values_list("driver_id", flat=True))) == 10
    assert len(set(open_offers.values_list("booking_id", flat=True))) == 10


def test_concurrent_settlements_never_add_up_to_more_than_the_fare():
    """Finding: "five concurrent ones with an empty reference are five records" (issue 24):
    the booking row's lock judges them one after another against what is owed."""
    from decimal import Decimal

    from bookings.models import PaymentRecord
    from dispatch.services.jobs import driver_job_settle

    driver = driver_at(LEEDS)
    booking = BookingFactory(status=BookingStatus.COMPLETED, driver=driver, fare=Decimal("39.20"))
    results = race(
        *[
            lambda: driver_job_settle(
                driver=driver, reference=booking.reference, amount=Decimal("39.20"), method="cash"
            )
            for _ in range(5)
        ]
    )
    refused = [r.code for r in results if isinstance(r, DomainError)]
    assert refused == ["settlement_exceeds_fare"] * 4
    assert list(PaymentRecord.objects.filter(booking=booking).values_list("amount", flat=True)) == [
        Decimal("39.20")
    ]
