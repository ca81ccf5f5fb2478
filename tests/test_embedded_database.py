"""SQLite is a real embedded default (issue 13): the concurrency guarantees of contract 1.3
hold on it as on PostgreSQL, with no 5xx.

The other two races of the issue's list run on both databases where they live:
50 redemptions of one quote (bookings/tests/test_api_bookings_create.py) and 20 requests
with one Idempotency-Key (api/tests/test_idempotency.py).
"""

from __future__ import annotations

import json

import pytest
from django.db import connection
from rest_framework.test import APIClient

from bookings.models import Booking
from core.testing.concurrency import race
from partners.tests.factories import partner_job


@pytest.mark.django_db(transaction=True)
def test_twenty_deliveries_of_one_job_ref_make_one_booking_and_no_5xx(make_account, tariffs):
    """Issue 13: "the embedded default (SQLite) under 20 concurrent bookings: 'database is
    locked', 500". Twenty partner deliveries of one jobRef at the same instant: every one
    is answered 200, one booking exists, and every answer names it."""
    partner = make_account("partner", name="Twenty")

    def deliver():
        client = APIClient()
        client.credentials(HTTP_X_API_KEY=partner.raw_key)
        return client.post(
            "/api/public/v1/jobs",
            data=json.dumps(partner_job(jobRef="SAME-REF")),
            content_type="application/json",
        )

    # Released together; a thread that crashes or hangs fails the test (tests.concurrency).
    responses = race(*[deliver] * 20)

    assert [r.status_code for r in responses] == [200] * 20, [
        r.content for r in responses if r.status_code != 200
    ]
    booking = Booking.objects.get(account=partner, job_ref="SAME-REF")
    references = {r.json()["results"][0]["bookingReference"] for r in responses}
    assert references == {booking.reference}


@pytest.mark.django_db
def test_sqlite_runs_in_wal_mode_with_a_busy_timeout():
    """Issue 13: "SQLite is a real embedded default: WAL, immediate transactions and a busy
    timeout"."""
    if connection.vendor != "sqlite":
        pytest.skip("SQLite only")
    with connection.cursor() as cursor:
        cursor.execute("PRAGMA journal_mode")
        assert cursor.fetchone()[0] == "wal"
        cursor.execute("PRAGMA busy_timeout")
        assert cursor.fetchone()[0] >= 5000
    assert connection.settings_dict["OPTIONS"]["transaction_mode"] == "IMMEDIATE"
