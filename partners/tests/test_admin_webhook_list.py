"""Issue 16: "On the admin's webhook list, status and event type sit off-screen"."""

from __future__ import annotations

import pytest
from django.contrib.admin.sites import site as admin_site

from partners.admin import WebhookDeliveryAdmin
from partners.models import WebhookDelivery

pytestmark = pytest.mark.django_db


def test_status_and_event_type_are_the_first_columns_and_the_list_is_short():
    admin = WebhookDeliveryAdmin(WebhookDelivery, admin_site)
    assert admin.list_display[:2] == ("status", "event_type")
    assert len(admin.list_display) <= 7
    assert "webhook_id" not in admin.list_display  # long; on the detail page and searchable
    assert {"status", "event_type"} <= set(admin.list_filter)
    assert {"webhook_id", "booking__reference", "event_type"} <= set(admin.search_fields)


def test_the_list_page_shows_filters_search_and_the_columns_in_order(admin_client, make_account):
    from bookings.tests.factories import BookingEventFactory, BookingFactory

    account = make_account("partner", name="Acme Rides")
    booking = BookingFactory(account=account)
    WebhookDelivery.objects.create(
        account=account,
        booking=booking,
        event=BookingEventFactory(booking=booking),
        webhook_id="wh_" + "0" * 40,
        event_type="booking.accepted",
        sequence=1,
        body="{}",
        url="https://acme.example/hooks",
        status="failed",
        attempt_count=8,
        last_status_code=503,
    )
    html = admin_client.get("/admin/partners/webhookdelivery/").content.decode()
    assert 'id="changelist-search"' in html
    assert 'id="changelist-filter"' in html
    headers = html.split("<thead>", 1)[1].split("</thead>", 1)[0]
    assert headers.index("column-status") < headers.index("column-event_type")
    assert headers.index("column-event_type") < headers.index("column-booking_reference")
    row = html.split("<tbody>", 1)[1].split("</tr>", 1)[0]
    status_cell = row.split('class="field-status"', 1)[1].split("</", 1)[0]
    event_cell = row.split('class="field-event_type"', 1)[1].split("</", 1)[0]
    assert "Failed" in status_cell
    assert "booking.accepted" in event_cell
    assert row.index('class="field-event_type"') < row.index(booking.reference)
