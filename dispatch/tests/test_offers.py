"""Offers: one at a time, decline and timeout chains, tiers, no_driver, manual assignment."""

from __future__ import annotations

import re
from datetime import timedelta
from decimal import Decimal

import pytest
import time_machine
from django.core import mail
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from bookings.models import BookingEvent, BookingStatus
from bookings.services import booking_cancel
from bookings.tests.factories import BookingFactory
from core.errors import DomainError
from core.fast_paths import row_insert
from core.testing.places import LEEDS, LONDON, north_of
from dispatch.models import (
    AttemptOutcome,
    DispatchAttempt,
    NotificationLog,
    Offer,
    OfferStatus,
    SkipReason,
    Tier,
)
from dispatch.services import offers
from dispatch.services.matching import candidates, job_busy_window
from dispatch.services.offers import rounds
from dispatch.signals import fleet_offer_made
from dispatch.tests.factories import OperatorLicenceFactory, PartnerFleetFactory, jobs_held
from drivers.models import NetworkTier
from drivers.tests.factories import CorridorFactory, driver_at

pytestmark = pytest.mark.django_db


def open_offer(booking):
    return Offer.objects.get(booking=booking, status=OfferStatus.OPEN)


def test_dispatch_offers_the_nearest_driver_and_sends_job_cards(dispatch_now, settings):
    settings.DISPATCH_OFFER_TIMEOUT_SECONDS = 60
    near, far = driver_at(north_of(LEEDS, 1)), driver_at(north_of(LEEDS, 5))
    booking = BookingFactory()
    # when dispatch starts
    offer = dispatch_now(offers.booking_dispatch_next, booking_id=booking.pk)
    # then exactly one open offer goes to the nearest driver, the booking is offered
    booking.refresh_from_db()
    assert booking.status == BookingStatus.OFFERED
    assert offer.driver == near
    assert offer.tier == Tier.LOCAL
    assert Offer.objects.filter(booking=booking).count() == 1
    assert (offer.expires_at - offer.created_at) == timedelta(seconds=60)
    assert not Offer.objects.filter(driver=far).exists()
    # and a job card went out by SMS and WhatsApp, logged with its cost
    logs = {log.channel: log for log in NotificationLog.objects.filter(offer=offer)}
    assert set(logs) == {"sms", "whatsapp"}
    assert logs["sms"].status == "sent"
    assert str(logs["sms"].cost_gbp) == "0.02"
    assert str(logs["whatsapp"].cost_gbp) == "0.00"
    assert booking.reference in logs["sms"].body
    # and the status move went through the booking engine's event log
    assert BookingEvent.objects.filter(booking=booking, to_status="offered").count() == 1


def test_dispatching_twice_never_makes_a_second_offer(dispatch_now):
    driver_at(LEEDS), driver_at(north_of(LEEDS, 2))
    booking = BookingFactory()
    dispatch_now(offers.booking_dispatch_next, booking_id=booking.pk)
    assert dispatch_now(offers.booking_dispatch_next, booking_id=booking.pk) is None
    assert Offer.objects.filter(booking=booking).count() == 1


def test_decline_moves_to_the_next_candidate(dispatch_now):
    first, second = driver_at(north_of(LEEDS, 1)), driver_at(north_of(LEEDS, 2))
    booking = BookingFactory()
    offer = dispatch_now(offers.booking_dispatch_next, booking_id=booking.pk)
    # when the first driver declines
    dispatch_now(offers.offer_decline, offer_id=offer.pk, driver=first)
    # then the second driver has the open offer, the first one's is declined
    assert open_offer(booking).driver == second
    assert Offer.objects.get(pk=offer.pk).status == OfferStatus.DECLINED
    booking.refresh_from_db()
    assert booking.status == BookingStatus.OFFERED
    statuses = list(
        BookingEvent.objects.filter(booking=booking)
        .order_by("sequence")
        .values_list("to_status", flat=True)
    )
    assert statuses == ["offered", "confirmed", "offered"]


def test_timeout_moves_to_the_next_candidate(dispatch_now, settings):
    settings.DISPATCH_OFFER_TIMEOUT_SECONDS = 60
    first, second = driver_at(north_of(LEEDS, 1)), driver_at(north_of(LEEDS, 2))
    booking = BookingFactory()
    offer = dispatch_now(offers.booking_dispatch_next, booking_id=booking.pk)
    # a timeout that runs early changes nothing
    assert offers.offer_expire(offer_id=offer.pk) is False
    assert open_offer(booking).driver == first
    # when the deadline has passed
    with time_machine.travel(timezone.now() + timedelta(seconds=61)):
        assert dispatch_now(offers.offer_expire, offer_id=offer.pk) is True
    # then the offer expired and the next driver has it
    assert Offer.objects.get(pk=offer.pk).status == OfferStatus.EXPIRED
    assert open_offer(booking).driver == second
    assert DispatchAttempt.objects.filter(
        booking=booking, outcome=AttemptOutcome.EXPIRED, driver=first
    ).exists()


def test_a_driver_may_answer_until_the_deadline_and_not_at_it(dispatch_now):
    # Given an open offer (and a second driver waiting for it)
    first = driver_at(north_of(LEEDS, 1))
    driver_at(north_of(LEEDS, 2))
    booking = BookingFactory()
    offer = dispatch_now(offers.booking_dispatch_next, booking_id=booking.pk)
    deadline = offer.expires_at

    # At the deadline itself the offer is past: no accept, and the timeout closes it
    with pytest.raises(DomainError) as late:
        offers.offer_accept(offer_id=offer.pk, driver=first, now=deadline)
    assert late.value.code == "offer_closed"
    assert offers.offers_expire_overdue(now=deadline - timedelta(microseconds=1)) == 0
    assert offers.offer_expire(offer_id=offer.pk, now=deadline - timedelta(microseconds=1)) is False
    # A microsecond before it, the driver still takes the job
    accepted = offers.offer_accept(
        offer_id=offer.pk, driver=first, now=deadline - timedelta(microseconds=1)
    )
    assert accepted.status == OfferStatus.ACCEPTED


def test_the_timeout_closes_an_offer_at_its_deadline_exactly(dispatch_now):
    driver_at(north_of(LEEDS, 1))
    booking = BookingFactory()
    offer = dispatch_now(offers.booking_dispatch_next, booking_id=booking.pk)

    assert dispatch_now(offers.offer_expire, offer_id=offer.pk, now=offer.expires_at) is True
    assert Offer.objects.get(pk=offer.pk).status == OfferStatus.EXPIRED


def test_the_sweep_closes_offers_at_their_deadline_exactly(dispatch_now):
    driver_at(north_of(LEEDS, 1))
    booking = BookingFactory()
    offer = dispatch_now(offers.booking_dispatch_next, booking_id=booking.pk)

    assert dispatch_now(offers.offers_expire_overdue, now=offer.expires_at) == 1
    assert Offer.objects.get(pk=offer.pk).status == OfferStatus.EXPIRED


def test_the_sweep_s_batch_holds_open_offers_only(dispatch_now):
    # 500 closed offers past their deadline come first in the offers' order (a newer
    # booking): a sweep reading them into its batch of 500 would never reach the open one.
    driver_at(north_of(LEEDS, 1))
    booking = BookingFactory()
    newer, elsewhere = BookingFactory(), driver_at(LONDON)
    long_ago = timezone.now() - timedelta(days=1)
    Offer.objects.bulk_create(
        Offer(
            booking=newer,
            round=round_,
            tier=Tier.LOCAL,
            driver=elsewhere,
            status=OfferStatus.EXPIRED,
            expires_at=long_ago,
        )
        for round_ in range(1, 501)
    )
    offer = dispatch_now(offers.booking_dispatch_next, booking_id=booking.pk)

    assert dispatch_now(offers.offers_expire_overdue, now=offer.expires_at) == 1
    assert Offer.objects.get(pk=offer.pk).status == OfferStatus.EXPIRED


def test_late_accept_after_timeout_is_refused(dispatch_now):
    first = driver_at(north_of(LEEDS, 1))
    driver_at(north_of(LEEDS, 2))
    booking = BookingFactory()
    offer = dispatch_now(offers.booking_dispatch_next, booking_id=booking.pk)
    later = timezone.now() + timedelta(seconds=61)
    # even before the timeout task has run, a late accept is refused
    with pytest.raises(DomainError) as late:
        offers.offer_accept(offer_id=offer.pk, driver=first, now=later)
    assert late.value.code == "offer_closed"
    # and after the timeout has run too
    dispatch_now(offers.offer_expire, offer_id=offer.pk, now=later)
    with pytest.raises(DomainError) as closed:
        offers.offer_accept(offer_id=offer.pk, driver=first, now=later)
    assert closed.value.code == "offer_closed"
    first.refresh_from_db()
    assert first.current_jobs == 0


def test_accept_assigns_driver_and_vehicle_and_counts_the_job(dispatch_now):
    driver = driver_at(LEEDS)
    booking = BookingFactory()
    offer = dispatch_now(offers.booking_dispatch_next, booking_id=booking.pk)
    accepted = dispatch_now(offers.offer_accept, offer_id=offer.pk, driver=driver)
    booking.refresh_from_db()
    driver.refresh_from_db()
    assert accepted.status == OfferStatus.ACCEPTED
    assert booking.status == BookingStatus.ACCEPTED
    assert booking.driver == driver
    assert booking.vehicle == driver.vehicles.get()
    assert booking.subcontracted_to is None  # local tier: not subcontracted
    assert driver.current_jobs == 1
    # the offer row keeps the job's busy span, which the driver's next offers are checked
    # against (capacity in time)
    busy = job_busy_window(booking.pickup_time, booking.duration_minutes)
    assert (accepted.busy_from, accepted.busy_until) == busy
    assert None not in busy


def test_accept_by_a_driver_at_capacity_is_refused(dispatch_now):
    driver = driver_at(LEEDS, max_jobs=1)
    booking = BookingFactory()
    offer = dispatch_now(offers.booking_dispatch_next, booking_id=booking.pk)
    jobs_held(driver, 1)  # took a job elsewhere, at the same time
    with pytest.raises(DomainError) as busy:
        offers.offer_accept(offer_id=offer.pk, driver=driver)
    assert busy.value.code == "driver_busy"
    booking.refresh_from_db()
    assert booking.status == BookingStatus.OFFERED
    assert booking.driver is None


def test_another_drivers_offer_is_not_found(dispatch_now):
    driver_at(LEEDS)
    stranger = driver_at(LONDON)
    booking = BookingFactory()
    offer = dispatch_now(offers.booking_dispatch_next, booking_id=booking.pk)
    with pytest.raises(DomainError) as missing:
        offers.offer_accept(offer_id=offer.pk, driver=stranger)
    assert missing.value.code == "offer_not_found"


def test_tiers_in_order_then_no_driver_offered_again_later(dispatch_now, settings, caplog):
    settings.ADMINS = [("Desk", "desk@example.co.uk")]
    # given one local driver, one national driver on the corridor and one partner fleet
    local = driver_at(north_of(LEEDS, 1))
    operator = OperatorLicenceFactory().account
    national = driver_at(north_of(LEEDS, 8), network=NetworkTier.NATIONAL, approved_by=operator)
    CorridorFactory(driver=national)
    fleet = PartnerFleetFactory()
    booking = BookingFactory(dropoff="London", dropoff_lat=LONDON[0], dropoff_lng=LONDON[1])
    fleet_offers = []
    fleet_offer_made.connect(
        lambda sender, offer, **kw: fleet_offers.append(offer),
        weak=False,
        dispatch_uid="test-fleet",
    )
    try:
        offer = dispatch_now(offers.booking_dispatch_next, booking_id=booking.pk)
        assert (offer.tier, offer.driver) == (Tier.LOCAL, local)
        dispatch_now(offers.offer_decline, offer_id=offer.pk, driver=local)
        offer = open_offer(booking)
        assert (offer.tier, offer.driver, offer.subcontracted_to) == (
            Tier.NATIONAL,
            national,
            operator,
        )
        dispatch_now(offers.offer_decline, offer_id=offer.pk, driver=national)
        offer = open_offer(booking)
        assert (offer.tier, offer.fleet) == (Tier.FLEET, fleet)
        # the fleet is told through the signal the partners app turns into a webhook
        assert [o.pk for o in fleet_offers] == [offer.pk]
        assert not NotificationLog.objects.filter(offer=offer).exists()
        # when the fleet declines too, every tier is exhausted
        with caplog.at_level("WARNING"):
            dispatch_now(
                offers.fleet_offer_answer, account=fleet.account, booking=booking, accept=False
            )
    finally:
        fleet_offer_made.disconnect(dispatch_uid="test-fleet")
    booking.refresh_from_db()
    assert booking.status == BookingStatus.NO_DRIVER
    assert (
        DispatchAttempt.objects.filter(booking=booking, outcome=AttemptOutcome.EXHAUSTED).count()
        == 1
    )
    assert "no driver for booking" in caplog.text
    # the desk is alerted only when the window closes (issue 34): until then it is offered
    # again by itself (dispatch.services.redispatch)
    assert mail.outbox == []


def test_no_drivers_at_all_is_no_driver_and_the_trail_says_why(dispatch_now):
    expired = driver_at(LEEDS, licence_expiry=timezone.localdate() - timedelta(days=1))
    booking = BookingFactory()
    assert dispatch_now(offers.booking_dispatch_next, booking_id=booking.pk) is None
    booking.refresh_from_db()
    assert booking.status == BookingStatus.NO_DRIVER
    skipped = DispatchAttempt.objects.get(booking=booking, outcome=AttemptOutcome.SKIPPED)
    assert (skipped.driver, skipped.reason) == (expired, SkipReason.LICENCE_EXPIRED)
    # and a no_driver booking does not start again on its own
    assert dispatch_now(offers.booking_dispatch_next, booking_id=booking.pk) is None
    assert not Offer.objects.filter(booking=booking).exists()


def test_redispatch_starts_a_new_round(dispatch_now):
    booking = BookingFactory()
    dispatch_now(offers.booking_dispatch_next, booking_id=booking.pk)
    driver = driver_at(LEEDS)  # a driver comes online later
    offer = dispatch_now(offers.booking_redispatch, booking_id=booking.pk, actor="admin:desk")
    assert (offer.driver, offer.round) == (driver, 2)
    booking.refresh_from_db()
    assert booking.status == BookingStatus.OFFERED


def test_fleet_accept_records_the_fleet_as_subcontracted_operator(dispatch_now):
    fleet = PartnerFleetFactory()
    booking = BookingFactory()
    dispatch_now(offers.booking_dispatch_next, booking_id=booking.pk)
    offer = dispatch_now(
        offers.fleet_offer_answer, account=fleet.account, booking=booking, accept=True
    )
    booking.refresh_from_db()
    assert offer.status == OfferStatus.ACCEPTED
    assert (booking.status, booking.subcontracted_to) == (BookingStatus.ACCEPTED, fleet.account)


def test_national_accept_records_s55a_operator_on_the_booking(dispatch_now):
    operator = OperatorLicenceFactory().account
    national = driver_at(LEEDS, network=NetworkTier.NATIONAL, approved_by=operator)
    CorridorFactory(driver=national)
    booking = BookingFactory(dropoff_lat=LONDON[0], dropoff_lng=LONDON[1])
    offer = dispatch_now(offers.booking_dispatch_next, booking_id=booking.pk)
    dispatch_now(offers.offer_accept, offer_id=offer.pk, driver=national)
    booking.refresh_from_db()
    assert (booking.driver, booking.subcontracted_to) == (national, operator)


def test_manual_assignment_withdraws_the_open_offer(dispatch_now):
    offered = driver_at(LEEDS)
    chosen = driver_at(LONDON)
    booking = BookingFactory()
    offer = dispatch_now(offers.booking_dispatch_next, booking_id=booking.pk)
    dispatch_now(
        offers.booking_assign_manual, booking_id=booking.pk, driver=chosen, actor="admin:desk"
    )
    booking.refresh_from_db()
    chosen.refresh_from_db()
    assert (booking.status, booking.driver) == (BookingStatus.ACCEPTED, chosen)
    assert chosen.current_jobs == 1
    assert Offer.objects.get(pk=offer.pk).status == OfferStatus.WITHDRAWN
    with pytest.raises(DomainError) as late:
        offers.offer_accept(offer_id=offer.pk, driver=offered)
    assert late.value.code == "offer_closed"


def test_manual_assignment_of_a_no_driver_booking(dispatch_now):
    booking = BookingFactory()
    dispatch_now(offers.booking_dispatch_next, booking_id=booking.pk)
    driver = driver_at(LONDON)
    dispatch_now(
        offers.booking_assign_manual, booking_id=booking.pk, driver=driver, actor="admin:desk"
    )
    booking.refresh_from_db()
    assert (booking.status, booking.driver) == (BookingStatus.ACCEPTED, driver)
    assert DispatchAttempt.objects.filter(booking=booking, outcome=AttemptOutcome.ASSIGNED).exists()


def test_cancelling_an_offered_booking_withdraws_the_offer(dispatch_now):
    driver = driver_at(LEEDS)
    booking = BookingFactory()
    offer = dispatch_now(offers.booking_dispatch_next, booking_id=booking.pk)
    booking.refresh_from_db()
    dispatch_now(booking_cancel, booking=booking, actor="passenger")
    assert Offer.objects.get(pk=offer.pk).status == OfferStatus.WITHDRAWN
    with pytest.raises(DomainError):
        offers.offer_accept(offer_id=offer.pk, driver=driver)


def test_cancelling_an_accepted_booking_frees_the_driver_once(dispatch_now):
    driver = driver_at(LEEDS)
    booking = BookingFactory()
    offer = dispatch_now(offers.booking_dispatch_next, booking_id=booking.pk)
    dispatch_now(offers.offer_accept, offer_id=offer.pk, driver=driver)
    booking.refresh_from_db()
    dispatch_now(booking_cancel, booking=booking, actor="passenger")
    driver.refresh_from_db()
    assert driver.current_jobs == 0
    # releasing again (a retried task) does not go below zero or free a second job
    assert offers.driver_job_release(booking_id=booking.pk) is False
    driver.refresh_from_db()
    assert driver.current_jobs == 0


def test_the_trail_of_an_offer_names_the_nearer_drivers_passed_over_not_the_further_ones(
    dispatch_now,
):
    # Given a nearer driver who fails a filter, the driver offered, and a further one who
    # fails a filter too
    expired = timezone.localdate() - timedelta(days=1)
    nearer = driver_at(north_of(LEEDS, 1), licence_expiry=expired)
    chosen = driver_at(north_of(LEEDS, 3))
    driver_at(north_of(LEEDS, 6), licence_expiry=expired)
    booking = BookingFactory()

    offer = dispatch_now(offers.booking_dispatch_next, booking_id=booking.pk)

    # Then the trail holds the nearer one (and why), the search, then the offer
    assert offer.driver == chosen
    trail = list(
        DispatchAttempt.objects.filter(booking=booking)
        .order_by("pk")
        .values_list("outcome", "driver_id", "reason")
    )
    assert trail == [
        (AttemptOutcome.SKIPPED, nearer.pk, SkipReason.LICENCE_EXPIRED),
        (AttemptOutcome.SEARCHED, None, ""),
        (AttemptOutcome.OFFERED, chosen.pk, ""),
    ]


def test_the_trail_s_rows_write_writes_the_rows_bulk_create_writes(dispatch_now):
    # given trail rows with every column set (and empty), more than one batch of SQLite's
    driver = driver_at(LEEDS)
    booking = BookingFactory()
    offer = dispatch_now(offers.booking_dispatch_next, booking_id=booking.pk)
    fleet = PartnerFleetFactory()
    now = timezone.now()

    def rows(n):
        return [
            DispatchAttempt(
                booking=booking,
                round=2 + i % 3,
                tier=None if i % 4 == 0 else Tier.LOCAL,
                outcome=AttemptOutcome.SKIPPED if i % 2 else AttemptOutcome.SEARCHED,
                reason=SkipReason.AT_CAPACITY if i % 2 else "",
                driver=driver if i % 2 else None,
                vehicle=offer.vehicle if i % 2 else None,
                fleet=fleet if i % 5 == 0 else None,
                offer=offer if i % 3 == 0 else None,
                dead_miles=Decimal("3.4") + i if i % 2 else None,
                detail=f"{i} skipped",
                created_at=now + timedelta(seconds=i),
            )
            for i in range(n)
        ]

    DispatchAttempt.objects.filter(booking=booking).delete()
    expected = rows(120)
    DispatchAttempt.objects.bulk_create(expected)
    columns = [f.attname for f in DispatchAttempt._meta.concrete_fields if not f.primary_key]
    by_orm = list(DispatchAttempt.objects.order_by("pk").values_list(*columns))
    DispatchAttempt.objects.all().delete()
    # when the dispatch step's own INSERT writes the same rows
    row_insert(DispatchAttempt).rows_write(rows(120))
    # then the table holds the same rows, column for column, in the same order
    assert list(DispatchAttempt.objects.order_by("pk").values_list(*columns)) == by_orm


def test_a_driver_another_step_offered_meanwhile_is_passed_over_for_the_next(monkeypatch):
    # given two free drivers, and another booking's step that offers the nearer one a job
    # between this step's check of that driver and its offer (a lost race on
    # offer_one_open_per_driver)
    nearer, further = driver_at(north_of(LEEDS, 1)), driver_at(north_of(LEEDS, 2))
    other, booking = BookingFactory(), BookingFactory()
    free_if_untaken = rounds.matching.driver_lock_if_free

    def taken_meanwhile(driver_id, job):
        free = free_if_untaken(driver_id, job)
        if driver_id == nearer.pk and not Offer.objects.filter(driver=nearer).exists():
            now = timezone.now()
            Offer.objects.create(
                booking=other, tier=Tier.LOCAL, driver=nearer, expires_at=now + timedelta(60)
            )
        return free

    monkeypatch.setattr(rounds.matching, "driver_lock_if_free", taken_meanwhile)
    # when the step offers the job
    offer = offers.booking_dispatch_next(booking_id=booking.pk)
    # then the further driver gets it, the nearer keeps the other job, and the trail
    # records the nearer one passed over (an offer of theirs now open), the search and
    # the offer
    assert offer.driver == further
    assert Offer.objects.get(booking=booking).pk == offer.pk
    assert Offer.objects.get(driver=nearer).booking == other
    trail_rows = sorted(
        DispatchAttempt.objects.filter(booking=booking).values_list("outcome", "driver", "reason")
    )
    assert trail_rows == [
        (AttemptOutcome.OFFERED, further.pk, ""),
        (AttemptOutcome.SEARCHED, None, ""),
        (AttemptOutcome.SKIPPED, nearer.pk, SkipReason.OFFER_PENDING),
    ]
    booking.refresh_from_db()
    assert booking.status == BookingStatus.OFFERED


def test_a_dispatch_step_after_a_decline_does_not_write_the_trail_again(dispatch_now):
    first, second = driver_at(north_of(LEEDS, 1)), driver_at(north_of(LEEDS, 2))
    booking = BookingFactory()
    offer = dispatch_now(offers.booking_dispatch_next, booking_id=booking.pk)

    dispatch_now(offers.offer_decline, offer_id=offer.pk, driver=first)

    assert Offer.objects.get(booking=booking, status=OfferStatus.OPEN).driver == second
    searched = DispatchAttempt.objects.filter(booking=booking, outcome=AttemptOutcome.SEARCHED)
    assert searched.count() == 1


def test_a_step_reads_the_booking_s_offers_and_its_trail_s_rounds_in_one_statement(
    dispatch_now,
):
    # given a booking whose first driver declined (the next step not run yet)
    first, second = driver_at(north_of(LEEDS, 1)), driver_at(north_of(LEEDS, 2))
    booking = BookingFactory()
    offer = dispatch_now(offers.booking_dispatch_next, booking_id=booking.pk)
    offers.offer_decline(offer_id=offer.pk, driver=first)
    # when the next step runs
    with CaptureQueriesContext(connection) as queries:
        offer = offers.booking_dispatch_next(booking_id=booking.pk)
    # then it read the booking's offers and its trail's rounds and searched tiers in one
    # statement (issue 41), and decided as before: the same round, the driver who said no
    # passed over, the tier's trail not written again
    statements = [" ".join(q["sql"].replace('"', "").split()) for q in queries.captured_queries]
    reads = [
        sql
        for sql in statements
        if sql.startswith("SELECT")
        and (
            "dispatch_dispatchattempt" in sql
            or re.search(r"FROM dispatch_offer (WHERE|INNER|LEFT|ORDER)", sql)
        )
    ]
    assert len(reads) == 1, reads
    assert "dispatch_offer" in reads[0]
    # and wrote the offer without a savepoint of its own: the one here is the step's
    # transaction, nested in the test's
    assert sum(sql.startswith("SAVEPOINT") for sql in statements) == 1
    assert (offer.driver, offer.round) == (second, 1)
    searched = DispatchAttempt.objects.filter(booking=booking, outcome=AttemptOutcome.SEARCHED)
    assert searched.count() == 1


def test_accept_records_when_and_who_on_the_offer_the_event_and_the_attempt(dispatch_now):
    driver = driver_at(north_of(LEEDS, 1))
    booking = BookingFactory()
    offer = dispatch_now(offers.booking_dispatch_next, booking_id=booking.pk)
    at = offer.created_at + timedelta(seconds=5)

    accepted = dispatch_now(offers.offer_accept, offer_id=offer.pk, driver=driver, now=at)

    assert accepted.responded_at == at
    event = BookingEvent.objects.get(booking=booking, to_status="accepted")
    assert event.actor == f"driver:{driver.pk}"
    assert event.detail == {"offerId": offer.pk, "driverId": driver.pk}
    attempt = DispatchAttempt.objects.get(booking=booking, outcome=AttemptOutcome.ACCEPTED)
    assert (attempt.round, attempt.tier) == (offer.round, Tier.LOCAL)
    assert (attempt.driver, attempt.vehicle, attempt.offer) == (
        driver,
        driver.vehicles.get(),
        accepted,
    )
    assert offer.dead_miles is not None
    assert attempt.dead_miles == offer.dead_miles


def test_decline_records_when_and_only_the_offered_driver_may_decline(dispatch_now):
    first = driver_at(north_of(LEEDS, 1))
    stranger = driver_at(LONDON)
    booking = BookingFactory()
    offer = dispatch_now(offers.booking_dispatch_next, booking_id=booking.pk)

    with pytest.raises(DomainError) as missing:
        offers.offer_decline(offer_id=offer.pk, driver=stranger)
    assert missing.value.code == "offer_not_found"
    assert Offer.objects.get(pk=offer.pk).status == OfferStatus.OPEN

    at = offer.created_at + timedelta(seconds=7)
    declined = dispatch_now(offers.offer_decline, offer_id=offer.pk, driver=first, now=at)
    assert (declined.status, declined.responded_at) == (OfferStatus.DECLINED, at)


def test_a_closed_offer_says_whether_it_timed_out_or_how_it_was_answered(dispatch_now):
    first = driver_at(north_of(LEEDS, 1))
    booking = BookingFactory()
    offer = dispatch_now(offers.booking_dispatch_next, booking_id=booking.pk)
    with pytest.raises(DomainError) as late:
        offers.offer_accept(offer_id=offer.pk, driver=first, now=offer.expires_at)
    assert late.value.detail == f"Offer {offer.pk} is no longer open (timed out)."

    dispatch_now(offers.offer_decline, offer_id=offer.pk, driver=first)
    with pytest.raises(DomainError) as declined:
        offers.offer_accept(offer_id=offer.pk, driver=first, now=offer.created_at)
    assert declined.value.code == "offer_closed"
    assert declined.value.detail == f"Offer {offer.pk} is no longer open (declined)."


def test_the_timeout_records_when_and_by_whom_and_ignores_an_unknown_offer(dispatch_now):
    driver_at(north_of(LEEDS, 1))
    booking = BookingFactory()
    offer = dispatch_now(offers.booking_dispatch_next, booking_id=booking.pk)
    at = offer.expires_at + timedelta(seconds=3)

    assert dispatch_now(offers.offer_expire, offer_id=offer.pk, now=at) is True

    assert Offer.objects.get(pk=offer.pk).responded_at == at
    back = BookingEvent.objects.filter(booking=booking, from_status="offered").first()
    assert (back.to_status, back.actor) == ("confirmed", "dispatch:timeout")
    assert offers.offer_expire(offer_id=offer.pk + 1000) is False


def test_a_dispatch_step_with_drivers_passed_over_runs_a_bounded_number_of_statements(
    django_assert_max_num_queries,
):
    # Given drivers passed over nearer than the one offered, for each view of the trail:
    # one the position index holds (at capacity) and one it does not (offline), in the
    # same ring as the one offered
    jobs_held(driver_at(north_of(LEEDS, 0.5), max_jobs=1), 1)
    driver_at(north_of(LEEDS, 1), online=False)
    chosen = driver_at(north_of(LEEDS, 2))
    booking = BookingFactory()
    # Then the step (candidates, the driver's lock, the trail, the offer and its writes)
    # costs a fixed number of statements, not one or two per rule or per driver passed over
    with django_assert_max_num_queries(22):
        offer = offers.booking_dispatch_next(booking_id=booking.pk)
    assert offer.driver == chosen
    reasons = set(
        DispatchAttempt.objects.filter(booking=booking, outcome=AttemptOutcome.SKIPPED).values_list(
            "reason", flat=True
        )
    )
    assert reasons == {SkipReason.AT_CAPACITY, SkipReason.OFFLINE}


def test_a_step_that_finds_every_driver_near_busy_asks_the_index_three_times(monkeypatch):
    # Given a dozen drivers around the pickup, out to 9 km (the first four rings), every
    # one at their job limit
    busy = [driver_at(north_of(LEEDS, 0.2 + 0.8 * n), max_jobs=1) for n in range(12)]
    for driver in busy:
        jobs_held(driver, 1)
    booking = BookingFactory()
    asks = []
    drivers_near = candidates.drivers_near
    monkeypatch.setattr(
        candidates, "drivers_near", lambda **kwargs: asks.append(kwargs) or drivers_near(**kwargs)
    )
    with CaptureQueriesContext(connection) as statements:
        assert offers.booking_dispatch_next(booking_id=booking.pk) is None
    # Then the index is asked for the first two rings, then once for every other ring of
    # both driver tiers and the trail; only those rings' drivers go through a tier's
    # filters (the others are known busy from one statement over them all)
    assert len(asks) == 3
    filters = [
        statement["sql"]
        for statement in statements.captured_queries
        if statement["sql"].lstrip().startswith("WITH near (driver_id, lat, lng) AS")
    ]
    assert ["d.network" in sql for sql in filters] == [True, True, False]
    # and the trail still names every driver passed over, with their reason
    booking.refresh_from_db()
    assert booking.status == BookingStatus.NO_DRIVER
    assert set(
        DispatchAttempt.objects.filter(
            booking=booking, tier=Tier.LOCAL, outcome=AttemptOutcome.SKIPPED
        ).values_list("driver", "reason")
    ) == {(driver.pk, SkipReason.AT_CAPACITY) for driver in busy}
