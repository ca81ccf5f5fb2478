"""The driver dashboard reconciles earnings against payment records, never quoted fares."""

from __future__ import annotations

from datetime import datetime, timedelta
from decimal import Decimal
from zoneinfo import ZoneInfo

import pytest
import time_machine

from bookings.models import BookingStatus, PaymentRecord
from bookings.services import payment_record_append
from bookings.tests.factories import BookingFactory
from core.testing.places import LEEDS
from dispatch.models import Offer, OfferStatus, Tier
from dispatch.selectors import driver_dashboard
from drivers.tests.factories import UserFactory, driver_at

pytestmark = pytest.mark.django_db

LONDON_TZ = ZoneInfo("Europe/London")
# Wednesday 12 November 2025, 18:00 UK time; the week started on Monday 10 November.
NOW = datetime(2025, 11, 12, 18, 0, tzinfo=LONDON_TZ)


def job(driver, pickup_time, fare="50.00", dead_miles="2.5", status=BookingStatus.COMPLETED):
    booking = BookingFactory(
        driver=driver, pickup_time=pickup_time, fare=Decimal(fare), status=status
    )
    Offer.objects.create(
        booking=booking,
        tier=Tier.LOCAL,
        driver=driver,
        status=OfferStatus.ACCEPTED,
        dead_miles=Decimal(dead_miles),
        expires_at=pickup_time,
        released_at=pickup_time,
    )
    return booking


def pay(booking, amount, when, kind=PaymentRecord.Kind.PAYMENT, fee="0.00"):
    payment_record_append(
        booking=booking,
        amount=Decimal(amount),
        method="card",
        kind=kind,
        processor_fee=Decimal(fee),
        driver=booking.driver,
        occurred_at=when,
    )


@pytest.fixture
def week_of_jobs():
    driver = driver_at(LEEDS, max_jobs=5)
    today = job(driver, NOW - timedelta(hours=3), fare="50.00", dead_miles="2.5")
    monday = job(driver, NOW - timedelta(days=2), fare="40.00", dead_miles="1.5")
    last_week = job(driver, NOW - timedelta(days=8), fare="30.00", dead_miles="4.0")
    job(driver, NOW - timedelta(days=1), fare="99.00", status=BookingStatus.CANCELLED)
    # paid 45 of a 50 fare today by card (fee 0.80), Monday's 40 paid then 10 refunded
    pay(today, "45.00", NOW - timedelta(hours=2), fee="0.80")
    pay(monday, "40.00", NOW - timedelta(days=2))
    pay(monday, "10.00", NOW - timedelta(days=1), kind=PaymentRecord.Kind.REFUND)
    pay(last_week, "30.00", NOW - timedelta(days=8))
    return driver


def test_totals_come_from_payment_records_minus_refunds(week_of_jobs):
    dashboard = driver_dashboard(driver=week_of_jobs, now=NOW)
    # today: one job, paid 45 (not its 50 fare)
    assert dashboard.today.jobs == 1
    assert dashboard.today.earnings == Decimal("45.00")
    assert dashboard.today.dead_miles == Decimal("2.5")
    # this week: two jobs (the cancelled one does not count), 45 + 40 - 10
    assert dashboard.this_week.jobs == 2
    assert dashboard.this_week.earnings == Decimal("75.00")
    assert dashboard.this_week.refunds == Decimal("10.00")
    assert dashboard.this_week.processor_fees == Decimal("0.80")
    assert dashboard.this_week.dead_miles == Decimal("4.0")
    # weekly totals, newest first: this week, then last week's 30
    assert [w.start.isoformat() for w in dashboard.weeks[:2]] == ["2025-11-10", "2025-11-03"]
    assert dashboard.weeks[1].earnings == Decimal("30.00")
    assert dashboard.weeks[1].jobs == 1
    # and per job: the Monday job earned 40 - 10
    earnings = {j.booking.fare: j.earnings for j in dashboard.week_jobs}
    assert earnings == {Decimal("50.00"): Decimal("45.00"), Decimal("40.00"): Decimal("30.00")}


def test_weeks_run_monday_to_sunday_in_uk_time():
    driver = driver_at(LEEDS, max_jobs=5)
    # Sunday 23:30 UK time belongs to the week that started on Monday 3 November
    sunday_late = datetime(2025, 11, 9, 23, 30, tzinfo=LONDON_TZ)
    booking = job(driver, sunday_late)
    pay(booking, "20.00", sunday_late)
    dashboard = driver_dashboard(driver=driver, now=NOW)
    assert dashboard.this_week.earnings == Decimal("0.00")
    assert dashboard.weeks[1].earnings == Decimal("20.00")


def test_dashboard_page_shows_the_reconciled_totals(
    client, week_of_jobs, django_assert_max_num_queries
):
    import time_machine

    week_of_jobs.user = UserFactory()
    week_of_jobs.save(update_fields=["user"])
    client.force_login(week_of_jobs.user)
    with time_machine.travel(NOW, tick=False), django_assert_max_num_queries(12):
        response = client.get("/driver/dashboard/")
    assert response.status_code == 200
    html = response.content.decode()
    assert 'id="week-earnings">£75.00' in html
    assert 'id="today-earnings">£45.00' in html
    assert 'id="week-dead-miles">4.0 mi' in html


def test_dashboard_needs_login(client):
    response = client.get("/driver/dashboard/")
    assert response.status_code == 302
    assert response["Location"].startswith("/driver/login/")


def test_dashboard_lists_open_offers_with_their_job_card_links_and_the_subscription(client):
    """Issue 16: "The dashboard has no link to the subscription page and no list of open
    offers"."""
    from datetime import UTC

    from dispatch.links import offer_link_path

    # Given a driver with one open offer, one past its deadline and one declined
    driver = driver_at(LEEDS, max_jobs=3, user=UserFactory())
    now = datetime(2030, 6, 5, 19, 0, tzinfo=UTC)
    offers = {}
    for name, expires, status in (
        ("open", now + timedelta(minutes=2), OfferStatus.OPEN),
        ("declined", now + timedelta(minutes=2), OfferStatus.DECLINED),
    ):
        booking = BookingFactory(
            pickup="Leeds station " + name, pickup_time=now + timedelta(hours=1)
        )
        offers[name] = Offer.objects.create(
            booking=booking, tier=Tier.LOCAL, driver=driver, status=status, expires_at=expires
        )
    # When they open the dashboard
    with time_machine.travel(now, tick=False):
        client.force_login(driver.user)
        html = client.get("/driver/dashboard/").content.decode()
        open_link = offer_link_path(offers["open"].pk)

    # Then the open offer is listed with a link to its job card, the others are not
    listed = html.split('id="open-offers"', 1)[1].split("</ul>", 1)[0]
    assert f'href="{open_link}"' in listed
    assert offers["open"].booking.reference in listed
    assert offers["declined"].booking.reference not in listed
    # and it links to the subscription page
    assert 'href="/driver/billing/" id="subscription-link"' in html


def test_an_offer_past_its_deadline_is_not_listed(client):
    from datetime import UTC

    driver = driver_at(LEEDS, user=UserFactory())
    now = datetime(2030, 6, 5, 19, 0, tzinfo=UTC)
    booking = BookingFactory(pickup_time=now + timedelta(hours=1))
    Offer.objects.create(
        booking=booking,
        tier=Tier.LOCAL,
        driver=driver,
        status=OfferStatus.OPEN,
        expires_at=now - timedelta(seconds=1),
    )
    with time_machine.travel(now, tick=False):
        client.force_login(driver.user)
        html = client.get("/driver/dashboard/").content.decode()
    assert booking.reference not in html
    assert "No open offers right now." in html


def test_jobs_in_hand_are_listed_with_the_passengers_contact(client):
    driver = driver_at(LEEDS, max_jobs=3, user=UserFactory())
    held = BookingFactory(
        driver=driver,
        status=BookingStatus.ACCEPTED,
        passenger_name="Jo Bloggs",
        passenger_phone="+447700900123",
        pickup_time=NOW + timedelta(days=9),  # next week: not in this week's table
    )
    done = BookingFactory(driver=driver, status=BookingStatus.COMPLETED)
    with time_machine.travel(NOW, tick=False):
        client.force_login(driver.user)
        html = client.get("/driver/dashboard/").content.decode()
    in_hand = html.split('id="jobs-in-hand"', 1)[1].split("</table>", 1)[0]
    assert held.reference in in_hand
    assert 'href="tel:+447700900123"' in in_hand
    assert done.reference not in in_hand
