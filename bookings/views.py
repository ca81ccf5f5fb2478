"""Server-rendered passenger pages: tracking, paying the driver, confirming, booking."""

from __future__ import annotations

import uuid

from django.http import Http404
from django.shortcuts import redirect, render
from django.views.decorators.http import require_GET, require_http_methods

from api.callers import caller_from_request
from bookings import actions
from bookings.forms import QuoteBookingForm
from bookings.links import booking_page_token_valid
from bookings.models import Booking, BookingSource
from bookings.services import (
    booking_pay_driver_url,
    booking_status_url,
    email_confirmation_redeem,
    payment_state,
)
from core.errors import DomainError
from dispatch.airports import airport_pickup_summary
from drivers.selectors import driver_public_summary


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


def _driver(booking: Booking) -> dict | None:
    """The driver as the API shows them (contract 3): first name and initial."""
    return driver_public_summary(booking.driver, booking.vehicle)


@require_GET
def booking_status_page(request, reference: str, token: str):
    booking = _booking_or_404(reference, token)
    records = list(booking.payment_records.all())
    return render(
        request,
        "bookings/status.html",
        {
            "booking": booking,
            "payment_state": payment_state(records, booking.fare_due),
            "events": booking.events.order_by("sequence"),
            "pay_driver_url": booking_pay_driver_url(booking),
            "driver": _driver(booking),
            "airport_pickup": airport_pickup_summary(booking),
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
            "payment_state": payment_state(records, booking.fare_due),
            "records": records,
            "driver": _driver(booking),
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


BOOK_TEMPLATE = "bookings/book.html"


def _quote_or_none(quote_id: str):
    from pricing.models import Quote

    try:
        return Quote.objects.filter(pk=uuid.UUID(quote_id)).first()
    except ValueError:  # missing or malformed: the page says the quote was not found
        return None


@require_http_methods(["GET", "POST"])
def book_page(request):
    """The page a quote's bookingUrl opens (seed 2.3); books as source ``website``."""
    quote_id = request.POST.get("quote_id") or request.GET.get("quote", "")
    quote = _quote_or_none(quote_id)
    form = QuoteBookingForm(request.POST if request.method == "POST" else None)
    if quote is not None and form.is_valid():
        caller = caller_from_request(request, source=BookingSource.WEBSITE)
        try:
            booking, _ = actions.booking_place_from_quote(
                caller=caller, **form.booking_details(quote)
            )
            return redirect(booking_status_url(booking))
        except DomainError as error:
            form.add_domain_error(error)
    return render(request, BOOK_TEMPLATE, {"quote": quote, "quote_id": quote_id, "form": form})
