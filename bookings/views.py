"""Server-rendered passenger pages: tracking, paying the driver, confirming, booking."""

from __future__ import annotations

import uuid

from django.http import Http404
from django.shortcuts import render
from django.views.decorators.http import require_GET

from bookings.links import booking_page_token_valid
from bookings.models import Booking
from bookings.services import booking_pay_driver_url, email_confirmation_redeem, payment_state


def _booking_or_404(reference: str, token: str) -> Booking:
    """The booking the link opens; 404 alike for an unknown reference and a wrong token."""
    if not booking_page_token_valid(reference.upper(), token):
        raise Http404("No such booking")
    booking = (
        Booking.objects.select_related("driver", "vehicle")
        .prefetch_related("payment_records")
        .filter(reference=reference.upper())
        .first()
    )
    if booking is None:
        raise Http404("No such booking")
    return booking


@require_GET
def booking_status_page(request, reference: str, token: str):
    booking = _booking_or_404(reference, token)
    records = list(booking.payment_records.all())
    return render(
        request,
        "bookings/status.html",
        {
            "booking": booking,
            "payment_state": payment_state(records, booking.fare),
            "events": booking.events.order_by("sequence"),
            "pay_driver_url": booking_pay_driver_url(booking),
        },
    )


@require_GET
def booking_pay_driver_page(request, reference: str, token: str):
    booking = _booking_or_404(reference, token)
    records = list(booking.payment_records.all())
    return render(
        request,
        "bookings/pay_driver.html",
        {
            "booking": booking,
            "payment_state": payment_state(records, booking.fare),
            "records": records,
        },
    )


@require_GET
def passenger_confirm_email(request, token: str):
    passenger = email_confirmation_redeem(token=token)
    return render(
        request,
        "bookings/email_confirmed.html",
        {"passenger": passenger},
        status=200 if passenger else 404,
    )


@require_GET
def book_page(request):
    """The prefilled booking page a quote's bookingUrl opens (seed 2.3)."""
    from pricing.models import Quote

    quote_id = request.GET.get("quote", "")
    try:
        quote = Quote.objects.filter(pk=uuid.UUID(quote_id)).first()
    except ValueError:  # missing or malformed: the page says the quote was not found
        quote = None
    return render(request, "bookings/book.html", {"quote": quote, "quote_id": quote_id})
