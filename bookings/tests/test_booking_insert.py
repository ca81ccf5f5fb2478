"""The booking engine's INSERT: a booking and its created event, whole or not at all.

Outside a transaction a booking with nothing else to write is one statement on
PostgreSQL (a data-modifying CTE), so these tests run with real commits
(``transaction=True``): inside the usual per-test transaction that path is not taken.
"""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.db import IntegrityError, connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from bookings.models import Booking, BookingEvent, Passenger
from bookings.services import BookingDraft, PassengerDetails, booking_create, creation
from pricing.services import quote_price

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def priced(tariffs):
    return quote_price(
        pickup="Leeds station",
        dropoff="York",
        passengers=2,
        vehicle_type=None,
        depart_at=timezone.now() + timedelta(hours=2),
    )


def draft(**overrides) -> BookingDraft:
    values = {
        "source": "api",
        "pickup_time": timezone.now() + timedelta(hours=2),
        "passenger": PassengerDetails(name="Jo Bloggs", phone="+447700900123"),
    }
    values.update(overrides)
    return BookingDraft(**values)


def test_a_new_booking_is_stored_with_its_created_event(priced):
    booking = booking_create(draft=draft(agent="claude"), priced=priced)

    stored = Booking.objects.get(pk=booking.pk)
    assert stored.reference == booking.reference
    assert stored.fare == priced.fare
    assert stored.applied_rules == priced.applied_rules
    assert stored.agent == "claude"
    # Tasks run eagerly here: dispatch has already appended its own events after it.
    event = BookingEvent.objects.filter(booking=booking).earliest("sequence")
    assert (event.type, event.sequence, event.to_status) == ("booking.created", 1, "confirmed")
    assert event.actor == "agent:claude"
    assert event.detail == {"source": "api"}


def test_a_new_booking_is_stored_as_save_stores_the_same_values(priced, make_account, settings):
    # The instance (fast_paths.instance_new) and the row (fast_paths.RowInsert.row) are
    # built past the ORM's keyword form and save(): the row stored must be save()'s.
    settings.DISPATCH_IN_PROCESS = False  # nothing changes the row after the insert
    account = make_account(kind="agent")
    booking = booking_create(
        draft=draft(account=account, agent="claude", flight_number="BA1326", notes="Two bags"),
        priced=priced,
    )
    columns = {
        field.attname: getattr(booking, field.attname)
        for field in Booking._meta.concrete_fields
        if not field.primary_key
    }
    by_save = Booking(**{**columns, "reference": "DTD-BYSAVE01"})
    by_save.save(force_insert=True)

    assert booking.account is account
    assert row_of(booking) == row_of(by_save)
    assert row_of(booking)["account_id"] == account.pk


def row_of(booking: Booking) -> dict:
    row = Booking.objects.filter(pk=booking.pk).values().get()  # every column
    for name in ("id", "reference", "updated_at"):
        row.pop(name)
    return row


@pytest.mark.postgres
def test_on_postgresql_the_booking_and_its_event_are_one_statement(priced, settings):
    settings.DISPATCH_IN_PROCESS = False  # the dispatcher process hands it over, later
    with CaptureQueriesContext(connection) as queries:
        booking_create(draft=draft(), priced=priced)

    writes = [q["sql"] for q in queries.captured_queries]
    assert len(writes) == 1, writes
    assert writes[0].startswith('WITH new_parent AS (INSERT INTO "bookings_booking"')


def test_a_reference_clash_retries_with_a_fresh_reference(priced, monkeypatch):
    taken = booking_create(draft=draft(), priced=priced)
    fresh = iter([taken.reference, "TXI-FRESH001"])
    monkeypatch.setattr(creation, "reference_generate", lambda: next(fresh))

    booking = booking_create(draft=draft(), priced=priced)

    assert booking.reference == "TXI-FRESH001"
    assert Booking.objects.count() == 2
    assert BookingEvent.objects.filter(booking=booking, type="booking.created").count() == 1


def test_a_failed_insert_leaves_neither_booking_nor_event_nor_passenger(priced, make_account):
    account = make_account("partner")
    booking_create(draft=draft(account=account, job_ref="JOB-1"), priced=priced)
    duplicate = draft(
        account=account,
        job_ref="JOB-1",
        passenger=PassengerDetails(name="Ann", email="ann@example.co.uk", phone="+447700900124"),
    )

    with pytest.raises(IntegrityError):
        booking_create(draft=duplicate, priced=priced)

    assert Booking.objects.count() == 1
    assert BookingEvent.objects.filter(type="booking.created").count() == 1
    assert not Passenger.objects.filter(email="ann@example.co.uk").exists()


def test_a_failed_insert_without_passenger_leaves_no_event(priced, make_account):
    account = make_account("partner")
    booking_create(draft=draft(account=account, job_ref="JOB-2"), priced=priced)

    with pytest.raises(IntegrityError):
        booking_create(draft=draft(account=account, job_ref="JOB-2"), priced=priced)

    assert Booking.objects.count() == 1
    assert BookingEvent.objects.filter(type="booking.created").count() == 1


def test_many_bookings_are_written_each_with_its_own_created_event(priced, make_account):
    from bookings.services import bookings_create_many

    account = make_account("partner")
    drafts = [
        (draft(account=account, job_ref=f"MANY-{n}", source="partner"), priced) for n in (3, 1, 2)
    ]

    bookings = bookings_create_many(drafts=drafts)

    assert [b.job_ref for b in bookings] == ["MANY-3", "MANY-1", "MANY-2"]
    for booking in bookings:
        stored = Booking.objects.get(pk=booking.pk)
        assert stored.job_ref == booking.job_ref
        assert stored.reference == booking.reference
        created = BookingEvent.objects.get(booking=booking, type="booking.created")
        assert created.actor == f"account:{account.slug}"
        assert created.detail == {"source": "partner"}


def test_many_bookings_are_all_or_none(priced, make_account):
    from bookings.services import bookings_create_many

    account = make_account("partner")
    booking_create(draft=draft(account=account, job_ref="TAKEN"), priced=priced)
    drafts = [
        (draft(account=account, job_ref=ref), priced) for ref in ("FREE-1", "TAKEN", "FREE-2")
    ]

    with pytest.raises(IntegrityError):
        bookings_create_many(drafts=drafts)

    assert list(Booking.objects.values_list("job_ref", flat=True)) == ["TAKEN"]
    assert BookingEvent.objects.filter(type="booking.created").count() == 1


@pytest.mark.postgres
def test_a_booking_is_written_under_no_pattern_index_only_the_unique_one_on_its_reference():
    # Migration 0018: the varchar_pattern_ops index served no query; every booking paid
    # for its entry. The unique index (the constraint retries rest on) stays.
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT indexdef FROM pg_indexes WHERE tablename = %s", [Booking._meta.db_table]
        )
        indexes = [row[0] for row in cursor.fetchall()]
    on_reference = [d for d in indexes if "(reference" in d]
    assert on_reference == [
        d for d in on_reference if d.startswith("CREATE UNIQUE INDEX") and "pattern_ops" not in d
    ]
    assert len(on_reference) == 1
