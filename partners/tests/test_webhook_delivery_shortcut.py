"""webhook_delivery_create decides "no webhook" without a query when it can.

It reads the booking's account only when the booking was loaded with it, through the
relation's public ``is_cached``; an account with a URL, or one not loaded, is read afresh
(a 410 may have disabled it since).
"""

from __future__ import annotations

import pytest

from bookings.events import booking_event_record
from bookings.models import Booking
from bookings.tests.factories import BookingFactory
from partners.models import WebhookDelivery
from partners.services.webhooks import webhook_delivery_create

pytestmark = pytest.mark.django_db


def test_a_sender_without_webhook_loaded_with_the_booking_costs_no_query(
    make_account, django_assert_num_queries
):
    quiet = make_account("partner", name="Quiet")
    booking = BookingFactory(account=quiet)
    event = booking_event_record(booking=booking, type="booking.test", actor="test")
    event.booking = Booking.objects.select_related("account").get(pk=booking.pk)

    with django_assert_num_queries(0):
        assert webhook_delivery_create(event=event) is None


def test_a_sender_not_loaded_is_read_and_a_hook_created(make_account):
    hooked = make_account("partner", name="Hooked", webhook_url="https://partner.example/h")
    booking = BookingFactory(account=hooked)
    event = booking_event_record(booking=booking, type="booking.test", actor="test")
    event.booking = Booking.objects.get(pk=booking.pk)  # account not loaded

    delivery = webhook_delivery_create(event=event)

    assert delivery is not None
    assert WebhookDelivery.objects.get().url == "https://partner.example/h"


def test_a_cached_account_with_a_url_is_read_afresh_and_respects_a_disable(make_account):
    from django.utils import timezone

    hooked = make_account("partner", name="Hooked", webhook_url="https://partner.example/h")
    booking = BookingFactory(account=hooked)
    event = booking_event_record(booking=booking, type="booking.test", actor="test")
    event.booking = Booking.objects.select_related("account").get(pk=booking.pk)
    type(hooked).objects.filter(pk=hooked.pk).update(webhook_disabled_at=timezone.now())

    assert webhook_delivery_create(event=event) is None
