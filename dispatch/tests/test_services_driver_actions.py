"""Driver actions as services: settlement (dispatch.services.jobs) and the job-card link
(dispatch.services.offer_links)."""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal

import pytest
import time_machine
from django.utils import timezone

from bookings.models import Booking, BookingStatus, PaymentRecord
from bookings.tests.factories import BookingFactory
from core.errors import DomainError
from core.testing.places import LEEDS
from dispatch.links import offer_link_token
from dispatch.models import OfferStatus
from dispatch.services import offers
from dispatch.services.jobs import driver_job_settle
from dispatch.services.offer_links import offer_link_visit
from drivers.tests.factories import driver_at

pytestmark = pytest.mark.django_db


@pytest.fixture
def held():
    driver = driver_at(LEEDS)
    booking = BookingFactory(status=BookingStatus.ON_BOARD, driver=driver, fare=Decimal("30"))
    return driver, booking


def settle(driver, booking, amount="30.00", payment_reference="R-1"):
    return driver_job_settle(
        driver=driver,
        reference=booking.reference,
        amount=Decimal(amount),
        method="cash",
        payment_reference=payment_reference,
    )


def test_a_settlement_is_recorded_once_per_payment_reference(held):
    driver, booking = held
    first = settle(driver, booking)
    again = settle(driver, booking)
    assert (first.created, again.created) == (True, False)
    assert again.record == first.record
    assert (first.payment_state, first.booking_reference) == ("paid", booking.reference)
    assert PaymentRecord.objects.count() == 1


def test_a_retry_still_answers_after_the_trip_moved_on(held):
    driver, booking = held
    settle(driver, booking)
    Booking.objects.filter(pk=booking.pk).update(status=BookingStatus.COMPLETED)
    assert settle(driver, booking).created is False


@pytest.mark.parametrize("status", [BookingStatus.ARRIVED, BookingStatus.NO_SHOW])
def test_no_settlement_outside_on_board_and_completed(held, status):
    driver, booking = held
    Booking.objects.filter(pk=booking.pk).update(status=status)
    with pytest.raises(DomainError) as refused:
        settle(driver, booking)
    assert refused.value.code == "not_settleable"
    assert PaymentRecord.objects.count() == 0


@pytest.mark.parametrize("amount", ["0", "-0.01", "100000.00"])
def test_amount_bounds(held, amount):
    driver, booking = held
    with pytest.raises(DomainError) as refused:
        settle(driver, booking, amount)
    assert (refused.value.code, list(refused.value.errors)) == ("invalid_input", ["amountGBP"])


def test_another_drivers_job_is_not_found(held):
    _, booking = held
    with pytest.raises(DomainError) as refused:
        settle(driver_at(LEEDS), booking)
    assert refused.value.code == "job_not_found"


# --- the job-card link --------------------------------------------------------------------


@pytest.fixture
def offered(django_capture_on_commit_callbacks):
    driver_at(LEEDS)
    booking = BookingFactory()
    with django_capture_on_commit_callbacks(execute=True):
        return offers.booking_dispatch_next(booking_id=booking.pk)


def test_opening_a_link_shows_the_open_offer(offered):
    visit = offer_link_visit(token=offer_link_token(offered.pk))
    assert (visit.offer, visit.is_open, visit.accepted, visit.error) == (offered, True, False, None)


def test_accepting_through_the_link_assigns_its_driver(offered):
    visit = offer_link_visit(token=offer_link_token(offered.pk), decision="accept")
    assert visit.accepted
    assert visit.error is None
    assert visit.booking.driver == offered.driver


def test_an_unknown_decision_changes_nothing(offered):
    visit = offer_link_visit(token=offer_link_token(offered.pk), decision="maybe")
    assert visit.error.code == "invalid_input"
    offered.refresh_from_db()
    assert offered.status == OfferStatus.OPEN


@pytest.mark.parametrize("token", ["garbage", "1:bad-signature"])
def test_a_forged_link_opens_nothing(token):
    with pytest.raises(DomainError) as refused:
        offer_link_visit(token=token)
    assert refused.value.code == "offer_not_found"


def test_an_old_link_has_expired(offered, settings):
    token = offer_link_token(offered.pk)
    with (
        time_machine.travel(timezone.now() + timedelta(days=30)),
        pytest.raises(DomainError) as refused,
    ):
        offer_link_visit(token=token)
    assert refused.value.code == "offer_link_expired"
