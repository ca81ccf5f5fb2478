"""Waiting and no-shows (issue 15), through the driver app's status endpoint (contract 6)."""

from __future__ import annotations

import dataclasses
import datetime as dt
import math
from decimal import Decimal

import pytest
import time_machine
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from bookings.models import Booking, BookingEvent, BookingStatus, FlightStatus
from bookings.tests.factories import BookingFactory
from core.errors import DomainError
from core.geo import EARTH_RADIUS_KM
from core.testing.places import LEEDS, north_of
from dispatch.airports import airport_get
from dispatch.flight_status import FlightReport
from dispatch.services.flights import flight_update_apply
from dispatch.services.waiting import (
    WaitingTerms,
    driver_reported_at_pickup,
    no_show_require_allowed,
    waiting_line,
)
from drivers.tests.factories import UserFactory, driver_at, position_report
from pricing.models import Tariff
from pricing.tests.factories import TariffBandFactory
from pricing.waiting import WaitingRate

pytestmark = pytest.mark.django_db

PICKUP = dt.datetime(2026, 11, 23, 10, 0, tzinfo=dt.UTC)
AT_PICKUP = {"lat": LEEDS[0], "lng": LEEDS[1]}


@pytest.fixture
def tariff():
    """A council table whose meter waits 20 s per 20p: 60p a minute."""
    return TariffBandFactory(tariff__reference="testshire-2026").tariff


@pytest.fixture
def settings_waiting(settings):
    settings.WAITING_FREE_MINUTES = 10
    settings.AIRPORT_FREE_WAITING_MINUTES = 60
    settings.NO_SHOW_MAX_DISTANCE_M = 500
    return settings


@pytest.fixture
def job(tariff, settings_waiting):
    """A job accepted by its driver: Leeds station at 10:00, booked at GBP 38.20."""
    driver = driver_at(LEEDS)
    driver.user = UserFactory()
    driver.save(update_fields=["user"])
    booking = BookingFactory(
        status=BookingStatus.ACCEPTED,
        driver=driver,
        pickup_time=PICKUP,
        fare=Decimal("38.20"),
        applied_rules=[{"code": "metered", "label": "Tariff 1", "amountGBP": 38.2}],
        tariff_source={"kind": "council", "reference": tariff.reference},
    )
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=driver.user).key}")
    return client, booking


def status(client, booking, at: dt.datetime, value: str, **position):
    """The driver posts a status at ``at``; with a position, their app has just reported
    the same one (POST /v1/driver/location), as it does every few seconds on a trip."""
    with time_machine.travel(at, tick=False):
        if position:
            position_report(booking.driver, now=at, **position)
        return client.post(
            f"/api/public/v1/driver/jobs/{booking.reference}/status",
            {"status": value, **position},
            format="json",
        )


def minutes(n: float) -> dt.timedelta:
    return dt.timedelta(minutes=n)


def test_waiting_beyond_the_free_minutes_is_a_line_on_the_settled_fare(job):
    client, booking = job
    assert status(client, booking, PICKUP - minutes(5), "arrived", **AT_PICKUP).status_code == 200
    # free until 10:10 (from the booked time: the driver came early); boards at 10:17
    response = status(client, booking, PICKUP + minutes(17), "on_board")
    assert response.status_code == 200, response.content

    booking.refresh_from_db()
    waiting = booking.final_fare_lines[-1]
    assert waiting["code"] == "waiting"
    assert Decimal(waiting["amountGBP"]) == Decimal("4.20")  # 7 min = 21 x 20 s at 20p
    assert "7 min beyond 10 free" in waiting["label"]
    assert booking.final_fare == Decimal("42.40")
    assert booking.fare == Decimal("38.20")  # the booked fare stays as quoted
    assert booking.fare_due == Decimal("42.40")
    # the arrival kept the driver's position
    arrived = BookingEvent.objects.get(booking=booking, to_status="arrived")
    assert arrived.detail["position"] == AT_PICKUP


def test_the_passenger_lookup_shows_the_final_fare_with_its_waiting_line(job, api_client):
    client, booking = job
    status(client, booking, PICKUP, "arrived", **AT_PICKUP)
    status(client, booking, PICKUP + minutes(12), "on_board")
    response = api_client.get(
        f"/api/public/v1/booking/{booking.reference}", {"email": booking.passenger_email}
    )
    final = response.json()["finalFare"]
    assert final["amountGBP"] == 39.4  # 2 min = 6 x 20p
    assert final["lines"][-1] == {
        "code": "waiting",
        "label": final["lines"][-1]["label"],
        "amountGBP": 1.2,
    }
    assert sum(Decimal(str(line["amountGBP"])) for line in final["lines"]) == Decimal("39.4")


def test_boarding_within_the_free_minutes_adds_nothing(job):
    client, booking = job
    status(client, booking, PICKUP - minutes(5), "arrived", **AT_PICKUP)
    status(client, booking, PICKUP + minutes(9), "on_board")
    booking.refresh_from_db()
    assert booking.final_fare == Decimal("38.20")
    assert [line["code"] for line in booking.final_fare_lines] == ["metered"]


def test_a_tariff_sets_its_own_free_minutes(job, tariff):
    Tariff.objects.filter(pk=tariff.pk).update(free_waiting_minutes=15)
    client, booking = job
    status(client, booking, PICKUP, "arrived", **AT_PICKUP)
    status(client, booking, PICKUP + minutes(17), "on_board")
    booking.refresh_from_db()
    assert booking.final_fare == Decimal("39.40")  # 2 min beyond 15


def test_a_no_show_before_the_free_waiting_is_over_is_refused(job):
    client, booking = job
    status(client, booking, PICKUP + minutes(2), "arrived", **AT_PICKUP)
    # free waiting from arrival (10:02) to 10:12
    response = status(client, booking, PICKUP + minutes(11), "no_show", **AT_PICKUP)
    assert response.status_code == 409
    problem = response.json()
    assert problem["code"] == "no_show_too_early"
    assert problem["noShowFrom"] == "2026-11-23T10:12:00Z"
    assert problem["detail"] == (
        "The passenger's free waiting runs until 10:12 (UK time); a no-show can be recorded "
        "from then."
    )
    assert Booking.objects.get(pk=booking.pk).status == BookingStatus.ARRIVED


def test_a_no_show_far_from_the_pickup_is_refused(job):
    client, booking = job
    status(client, booking, PICKUP, "arrived", **AT_PICKUP)
    lat, lng = north_of(LEEDS, 2)
    response = status(client, booking, PICKUP + minutes(30), "no_show", lat=lat, lng=lng)
    assert response.status_code == 409
    assert response.json()["code"] == "no_show_too_far"
    assert response.json()["maxDistanceM"] == 500


def metres_north_of_the_pickup(booking, metres: float) -> dict:
    """A position due north of the pickup, ``metres`` away on the great circle."""
    degrees = math.degrees(metres / 1000 / EARTH_RADIUS_KM)
    return {"lat": booking.pickup_lat + degrees, "lng": booking.pickup_lng}


@pytest.mark.parametrize(
    ("limit", "metres", "allowed"),
    [(500, 500, True), (500, 501, False), (300, 300, True), (300, 301, False)],
)
def test_a_no_show_is_recorded_up_to_the_distance_limit_and_not_a_metre_past(
    job, settings_waiting, limit, metres, allowed
):
    # Given the limit (500 m by default, or another the operator set)
    settings_waiting.NO_SHOW_MAX_DISTANCE_M = limit
    client, booking = job
    status(client, booking, PICKUP, "arrived", **AT_PICKUP)

    # When the driver reports a no-show from exactly the limit away, or a metre past it
    position = metres_north_of_the_pickup(booking, metres)
    response = status(client, booking, PICKUP + minutes(30), "no_show", **position)

    # Then it is recorded at the limit and refused past it
    if allowed:
        assert response.status_code == 200, response.content
        event = BookingEvent.objects.get(booking=booking, to_status="no_show")
        assert event.detail["distanceM"] == metres
    else:
        assert response.status_code == 409
        assert response.json()["code"] == "no_show_too_far"
        assert (response.json()["distanceM"], response.json()["maxDistanceM"]) == (metres, limit)
        assert response.json()["detail"] == (
            f"You are {metres} m from the pickup; a no-show is recorded only within "
            f"{limit} m of it."
        )


def test_the_no_show_limit_is_500_metres_by_default():
    from config.settings import base

    assert base.NO_SHOW_MAX_DISTANCE_M == 500


def test_a_tariff_with_no_free_minutes_charges_from_the_first_minute(job, tariff):
    # Given a tariff that grants 0 free minutes (not "unset": the default 10 must not apply)
    Tariff.objects.filter(pk=tariff.pk).update(free_waiting_minutes=0)
    client, booking = job
    status(client, booking, PICKUP, "arrived", **AT_PICKUP)

    # Then a no-show may be recorded at once, and 2 minutes' wait are charged
    early = status(client, booking, PICKUP - minutes(1), "no_show", **AT_PICKUP)
    assert early.status_code == 409
    assert early.json()["noShowFrom"] == PICKUP.isoformat().replace("+00:00", "Z")
    status(client, booking, PICKUP + minutes(2), "on_board")
    booking.refresh_from_db()
    assert booking.final_fare == Decimal("39.40")  # 2 min = 6 x 20 s at 20p
    assert "2 min beyond 0 free" in booking.final_fare_lines[-1]["label"]


def test_a_no_show_needs_the_drivers_position(job):
    client, booking = job
    status(client, booking, PICKUP, "arrived", **AT_PICKUP)
    response = status(client, booking, PICKUP + minutes(30), "no_show")
    assert response.status_code == 400
    assert set(response.json()["errors"]) == {"lat", "lng"}


def test_a_no_show_after_the_free_waiting_keeps_the_position_as_evidence(job):
    client, booking = job
    status(client, booking, PICKUP, "arrived", **AT_PICKUP)
    lat, lng = north_of(LEEDS, 0.2)
    response = status(client, booking, PICKUP + minutes(10), "no_show", lat=lat, lng=lng)
    assert response.status_code == 200, response.content
    event = BookingEvent.objects.get(booking=booking, to_status="no_show")
    assert event.detail["position"] == {"lat": lat, "lng": lng}
    assert 150 < event.detail["distanceM"] < 250
    assert event.detail["waitingFrom"] == "arrival"
    assert event.detail["freeWaitingUntil"] == (PICKUP + minutes(10)).isoformat()


def test_at_an_airport_the_free_waiting_counts_from_the_landing(job, settings_waiting):
    client, booking = job
    lba = airport_get("LBA")
    Booking.objects.filter(pk=booking.pk).update(
        pickup_lat=lba.lat, pickup_lng=lba.lng, flight_number="BA1234"
    )
    booking.refresh_from_db()
    landing = PICKUP + minutes(50)
    with time_machine.travel(PICKUP - minutes(60), tick=False):
        flight_update_apply(
            booking=booking,
            report=FlightReport(
                flight_number="BA1234", status=FlightStatus.LANDED, actual_arrival=landing
            ),
            actor="test",
        )
    at_airport = {"lat": lba.lat, "lng": lba.lng}
    # the driver comes at the moved pickup (landing + 45) and may not give up at 11:20,
    # an hour after the booked time, but only an hour after the landing (11:50)
    status(client, booking, landing + minutes(45), "arrived", **at_airport)
    early = status(client, booking, PICKUP + minutes(80), "no_show", **at_airport)
    assert early.status_code == 409
    assert early.json()["noShowFrom"] == "2026-11-23T11:50:00Z"
    late = status(client, booking, landing + minutes(60), "no_show", **at_airport)
    assert late.status_code == 200, late.content
    assert BookingEvent.objects.get(booking=booking, to_status="no_show").detail["waitingFrom"] == (
        "landing"
    )


def test_arrived_and_no_show_are_judged_by_the_drivers_own_position_reports(job):
    """Finding: "`arrived` and `no_show` are judged only by coordinates in the request
    body: a driver whose own position reports say London pastes the Leeds pickup's
    coordinates, records a no-show, and runs up waiting charges on the passenger's final
    fare." """
    client, booking = job
    # 3 km away: beyond ARRIVED_MAX_DISTANCE_M, yet near enough to drive in (London, as
    # the finding had it, is hours away: a report there a minute before is implausible).
    away = north_of(LEEDS, 3)
    with time_machine.travel(PICKUP - minutes(1), tick=False):
        position_report(booking.driver, lat=away[0], lng=away[1])
    pasted = status(client, booking, PICKUP, "arrived", **{})
    assert pasted.json()["code"] == "not_at_pickup"
    with time_machine.travel(PICKUP, tick=False):
        pasted = client.post(
            f"/api/public/v1/driver/jobs/{booking.reference}/status",
            {"status": "arrived", **AT_PICKUP},
            format="json",
        )
    assert (pasted.status_code, pasted.json()["code"]) == (409, "not_at_pickup")
    # the driver really comes, then the app goes quiet and they drive away again
    assert status(client, booking, PICKUP, "arrived", **AT_PICKUP).status_code == 200
    with time_machine.travel(PICKUP + minutes(20), tick=False):
        position_report(booking.driver, lat=away[0], lng=away[1])
        far = client.post(
            f"/api/public/v1/driver/jobs/{booking.reference}/status",
            {"status": "no_show", **AT_PICKUP},
            format="json",
        )
    assert (far.status_code, far.json()["code"]) == (409, "no_show_too_far")
    assert Booking.objects.get(pk=booking.pk).status == BookingStatus.ARRIVED


def test_an_implausible_jump_to_the_pickup_does_not_count_for_arrived(job):
    """Issue 35: a fix 3 km from the one a second before (10,800 km/h) is refused and so
    never judged: the driver is still 3 km away."""
    client, booking = job
    away = north_of(LEEDS, 3)
    with time_machine.travel(PICKUP - dt.timedelta(seconds=1), tick=False):
        position_report(booking.driver, lat=away[0], lng=away[1])
    with pytest.raises(DomainError) as refused:
        position_report(booking.driver, now=PICKUP, **AT_PICKUP)
    assert refused.value.code == "position_implausible"
    with time_machine.travel(PICKUP, tick=False):
        arrived = client.post(
            f"/api/public/v1/driver/jobs/{booking.reference}/status",
            {"status": "arrived", **AT_PICKUP},
            format="json",
        )
    assert (arrived.status_code, arrived.json()["code"]) == (409, "not_at_pickup")


def test_a_position_report_older_than_two_minutes_does_not_count(job):
    """Contract 6: "a position older than 2 minutes does not count"."""
    client, booking = job
    with time_machine.travel(PICKUP - minutes(3), tick=False):
        position_report(booking.driver, lat=LEEDS[0], lng=LEEDS[1])
    with time_machine.travel(PICKUP, tick=False):
        stale = client.post(
            f"/api/public/v1/driver/jobs/{booking.reference}/status",
            {"status": "arrived", **AT_PICKUP},
            format="json",
        )
    assert (stale.status_code, stale.json()["code"]) == (409, "position_unknown")
    assert stale.json()["detail"] == (
        "Your app has not reported your position in the last 2 minutes; send it "
        "(POST /v1/driver/location) and try again."
    )


def test_arrived_far_from_the_pickup_says_how_far_and_the_limit(job, settings_waiting):
    settings_waiting.ARRIVED_MAX_DISTANCE_M = 1000
    client, booking = job
    response = status(
        client, booking, PICKUP, "arrived", **metres_north_of_the_pickup(booking, 1001)
    )
    assert response.status_code == 409
    problem = response.json()
    assert problem["code"] == "not_at_pickup"
    assert (problem["distanceM"], problem["maxDistanceM"]) == (1001, 1000)
    assert problem["detail"] == (
        "Your app last reported you 1001 m from the pickup; this is recorded only within "
        "1000 m of it."
    )
    at_limit = status(
        client, booking, PICKUP, "arrived", **metres_north_of_the_pickup(booking, 1000)
    )
    assert at_limit.status_code == 200, at_limit.content


def test_arrived_records_the_drivers_own_report_as_evidence(job):
    client, booking = job
    assert status(client, booking, PICKUP, "arrived", **AT_PICKUP).status_code == 200
    event = BookingEvent.objects.get(booking=booking, to_status="arrived")
    assert event.detail["reportedPosition"] == {**AT_PICKUP, "at": PICKUP.isoformat()}
    assert event.detail["reportedDistanceM"] == 0


def test_a_pickup_with_only_one_coordinate_is_not_judged_by_distance(job):
    # A pickup without both coordinates has no point to measure from: nothing to judge.
    client, booking = job
    status(client, booking, PICKUP, "arrived", **AT_PICKUP)
    Booking.objects.filter(pk=booking.pk).update(pickup_lng=None)
    booking.refresh_from_db()
    far = north_of(LEEDS, 50)
    assert (
        driver_reported_at_pickup(
            booking, driver=booking.driver, now=PICKUP, max_distance_m=1, too_far_code="x"
        )
        == {}
    )
    with time_machine.travel(PICKUP + minutes(10), tick=False):
        evidence = no_show_require_allowed(
            booking, driver=booking.driver, now=PICKUP + minutes(10), lat=far[0], lng=far[1]
        )
    assert "distanceM" not in evidence
    assert evidence["position"] == {"lat": far[0], "lng": far[1]}


@pytest.mark.parametrize(("lat", "lng"), [(LEEDS[0], None), (None, LEEDS[1])])
def test_a_no_show_with_half_a_position_is_refused_naming_both_fields(job, lat, lng):
    client, booking = job
    status(client, booking, PICKUP, "arrived", **AT_PICKUP)
    with pytest.raises(DomainError) as refused:
        no_show_require_allowed(
            booking, driver=booking.driver, now=PICKUP + minutes(30), lat=lat, lng=lng
        )
    assert refused.value.code == "invalid_input"
    assert refused.value.detail == "A no-show needs the driver's position (lat, lng) as evidence."
    assert refused.value.errors == {
        "lat": ["Required for no_show."],
        "lng": ["Required for no_show."],
    }


def test_without_a_tariff_waiting_rate_nothing_is_charged_for_waiting(job):
    client, booking = job
    Booking.objects.filter(pk=booking.pk).update(tariff_source_own={})
    status(client, booking, PICKUP, "arrived", **AT_PICKUP)
    status(client, booking, PICKUP + minutes(30), "on_board")
    booking.refresh_from_db()
    assert booking.final_fare == Decimal("38.20")
    assert [line["code"] for line in booking.final_fare_lines] == ["metered"]


@pytest.mark.parametrize(
    ("past_free", "charged"),
    [
        (dt.timedelta(0), None),
        (dt.timedelta(seconds=1), "0.20"),
        (dt.timedelta(seconds=100), "1.00"),
        (dt.timedelta(seconds=101), "1.20"),
    ],
)
def test_waiting_is_charged_from_the_first_second_past_the_free_minutes(job, past_free, charged):
    client, booking = job
    status(client, booking, PICKUP, "arrived", **AT_PICKUP)
    status(client, booking, PICKUP + minutes(10) + past_free, "on_board")
    booking.refresh_from_db()
    lines = {line["code"]: line for line in booking.final_fare_lines}
    if charged is None:
        assert "waiting" not in lines
        assert booking.final_fare == Decimal("38.20")
    else:
        assert lines["waiting"]["amountGBP"] == charged
        assert booking.final_fare == Decimal("38.20") + Decimal(charged)


def test_the_waiting_line_says_how_long_beyond_the_free_minutes_and_the_rate(job):
    client, booking = job
    status(client, booking, PICKUP, "arrived", **AT_PICKUP)
    status(client, booking, PICKUP + minutes(17.5), "on_board")
    booking.refresh_from_db()
    assert booking.final_fare_lines[-1] == {
        "code": "waiting",
        "label": "Waiting 7 min beyond 10 free min from arrival (Tariff 1: GBP 0.20 per 20 s)",
        "amountGBP": "4.60",
    }


def test_a_band_with_its_own_waiting_step_charges_waiting_at_that_price(job, tariff):
    # Given a table that charges waiting in its own step (South Ribble's shape: distance
    # 20p per step, waiting 10p per period), here 10p per 20 s
    tariff.bands.update(waiting_increment_price_gbp=Decimal("0.10"))
    Tariff.objects.get(pk=tariff.pk).save()  # a changed band is a new version of its table
    client, booking = job
    status(client, booking, PICKUP, "arrived", **AT_PICKUP)
    # when the passenger boards 7 min 10 s after the free minutes
    status(client, booking, PICKUP + minutes(17) + dt.timedelta(seconds=10), "on_board")
    booking.refresh_from_db()
    # then waiting is 22 periods of 20 s begun at 10p, not at the 20p distance step
    assert booking.final_fare_lines[-1] == {
        "code": "waiting",
        "label": "Waiting 7 min beyond 10 free min from arrival (Tariff 1: GBP 0.10 per 20 s)",
        "amountGBP": "2.20",
    }
    assert booking.final_fare == Decimal("40.40")


def landed_airport_job(job, landing: dt.datetime):
    """The job moved to Leeds Bradford airport, its flight landed at ``landing``."""
    client, booking = job
    lba = airport_get("LBA")
    Booking.objects.filter(pk=booking.pk).update(
        pickup_lat=lba.lat, pickup_lng=lba.lng, flight_number="BA1234"
    )
    booking.refresh_from_db()
    with time_machine.travel(PICKUP - minutes(60), tick=False):
        flight_update_apply(
            booking=booking,
            report=FlightReport(
                flight_number="BA1234", status=FlightStatus.LANDED, actual_arrival=landing
            ),
            actor="test",
        )
    return client, booking, {"lat": lba.lat, "lng": lba.lng}


def test_a_driver_late_for_the_landing_charges_only_from_their_own_arrival(job):
    # Landed 10:50: free until 11:50; the driver comes only at 12:00, the passenger boards
    # at 12:05: 5 minutes' waiting (while the driver was there), not 15.
    landing = PICKUP + minutes(50)
    client, booking, at_airport = landed_airport_job(job, landing)
    status(client, booking, landing + minutes(70), "arrived", **at_airport)
    status(client, booking, landing + minutes(75), "on_board")
    booking.refresh_from_db()
    assert booking.final_fare_lines[-1] == {
        "code": "waiting",
        "label": "Waiting 5 min beyond 60 free min from landing (Tariff 1: GBP 0.20 per 20 s)",
        "amountGBP": "3.00",
    }


def test_at_an_airport_without_a_landing_the_airport_free_minutes_count_from_arrival(job):
    client, booking = job
    lba = airport_get("LBA")
    Booking.objects.filter(pk=booking.pk).update(pickup_lat=lba.lat, pickup_lng=lba.lng)
    booking.refresh_from_db()
    at_airport = {"lat": lba.lat, "lng": lba.lng}
    status(client, booking, PICKUP, "arrived", **at_airport)
    early = status(client, booking, PICKUP + minutes(59), "no_show", **at_airport)
    assert (early.status_code, early.json()["noShowFrom"]) == (409, "2026-11-23T11:00:00Z")
    late = status(client, booking, PICKUP + minutes(60), "no_show", **at_airport)
    assert late.status_code == 200, late.content
    assert (
        BookingEvent.objects.get(booking=booking, to_status="no_show").detail["waitingFrom"]
        == "arrival"
    )


def log_event(booking, at: dt.datetime, **fields) -> BookingEvent:
    """An event in ``booking``'s log at ``at``, after the ones it has."""
    booking.refresh_from_db()
    Booking.objects.filter(pk=booking.pk).update(sequence=booking.sequence + 1)
    return BookingEvent.objects.create(
        booking=booking, sequence=booking.sequence + 1, created_at=at, **fields
    )


def test_the_free_waiting_counts_from_this_bookings_own_arrival(job):
    client, booking = job
    status(client, booking, PICKUP, "arrived", **AT_PICKUP)
    # ...whatever the log says later: another booking's arrival, this booking's amendment
    other = BookingFactory(pickup_time=PICKUP)
    Booking.objects.filter(pk=other.pk).update(sequence=50)  # further along its own log
    log_event(other, PICKUP + minutes(5), type="booking.status_changed", to_status="arrived")
    log_event(booking, PICKUP + minutes(6), type="booking.amended")
    response = status(client, booking, PICKUP + minutes(10), "no_show", **AT_PICKUP)
    assert response.status_code == 200, response.content


def test_waiting_on_a_table_that_charges_nothing_for_it_adds_no_fare_line():
    # a band whose waiting increment costs 0: no "Waiting ... GBP 0.00" line on the fare
    arrived = dt.datetime(2030, 6, 5, 11, 0, tzinfo=dt.UTC)
    terms = WaitingTerms(
        starts_at=arrived,
        free=dt.timedelta(minutes=5),
        driver_arrived_at=arrived,
        from_landing=False,
        rate=WaitingRate("Day", Decimal("0.00"), Decimal(20)),
    )
    assert waiting_line(terms, boarded_at=arrived + dt.timedelta(minutes=12)) is None
    charged = dataclasses.replace(terms, rate=WaitingRate("Day", Decimal("0.20"), Decimal(20)))
    line = waiting_line(charged, boarded_at=arrived + dt.timedelta(minutes=12))
    assert line["amountGBP"] == "4.20"
