"""Server-rendered passenger pages: the landing quote form, booking a quote, paying the
driver, confirming an email. The tracking page, which shows dispatch's live state too, is
``dispatch.views``."""

from __future__ import annotations

import re
import secrets
from dataclasses import replace

from django.conf import settings
from django.http import Http404, JsonResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_http_methods

from api.callers import caller_from_request
from api.problems import http_status, problem_from_domain_error, problem_response
from bookings import actions
from bookings.forms import QuoteBookingForm, QuoteForm
from bookings.links import booking_page_token, booking_page_token_valid
from bookings.models import Booking, BookingSource
from bookings.page_errors import passenger_message
from bookings.selectors import PAYMENT_WORDS, driver_public_summary, quote_get_or_none
from bookings.services import (
    email_confirmation_redeem,
    payment_state,
)
from bookings.transitions import CANCELLABLE
from core.errors import DomainError, LimitReached
from pricing.suggestions import places_find


@require_http_methods(["GET", "POST"])
def landing_page(request):
    """GET /: the quote form, and the quote ``?quote=`` names; POST prices the journey with
    the API's own quote action and redirects to its quote (a reload asks nothing twice)."""
    if request.method == "GET":
        quote = quote_get_or_none(request.GET.get("quote", ""))
        return render(request, "bookings/landing.html", {"form": QuoteForm(), "quote": quote})
    form = QuoteForm(request.POST)
    browser = _quote_browser(request)
    quote = _quote_request(request, form, browser) if form.is_valid() else None
    if quote is not None:
        response = redirect(f"{reverse('landing-page')}?quote={quote.pk}#quote")
    else:
        response = render(request, "bookings/landing.html", {"form": form}, status=400)
    return _quote_browser_keep(response, browser)


# The website's quotes are counted per browser session (issue 34): a random id in a cookie
# that lasts while the browser is open (``bookings.policies.quote_limits_enforce``); the
# server keeps nothing of it but the rate-limit counts, which expire with their window.
QUOTE_BROWSER_ID = re.compile(r"[A-Za-z0-9_-]{22}")


def _quote_browser(request) -> str:
    """The browser's quote-session id from its cookie, or a new one."""
    browser = request.COOKIES.get(settings.QUOTE_BROWSER_COOKIE, "")
    return browser if QUOTE_BROWSER_ID.fullmatch(browser) else secrets.token_urlsafe(16)


def _quote_browser_keep(response, browser: str):
    response.set_cookie(
        settings.QUOTE_BROWSER_COOKIE,
        browser,
        secure=settings.SESSION_COOKIE_SECURE,
        httponly=True,
        samesite="Lax",
    )
    return response


def _quote_request(request, form: QuoteForm, browser: str):
    """Price the journey as a website caller; None with the refusal shown on the form."""
    caller = replace(caller_from_request(request, source=BookingSource.WEBSITE), session=browser)
    try:
        return actions.quote_request(caller=caller, **form.quote_arguments())
    except DomainError as error:
        form.add_domain_error(error)
        return None


@require_GET
def place_suggestions_json(request):
    """The quote form's address suggestions: {"suggestions": [{"label", "kindLabel"}]},
    under the API's own ``places`` limit per address (``places_find``); over it, 429
    problem JSON with Retry-After (the form then simply suggests nothing)."""
    caller = caller_from_request(request, source=BookingSource.WEBSITE)
    try:
        found = places_find(caller=caller, query=request.GET.get("q", ""))
    except LimitReached as error:
        return problem_response(problem_from_domain_error(error))
    body = {"suggestions": [{"label": s.label, "kindLabel": s.kind_label} for s in found]}
    response = JsonResponse(body)
    response["Cache-Control"] = "public, max-age=3600"
    return response


def booking_page_or_404(reference: str, token: str) -> Booking:
    """The booking a page link opens (this module's pages and the tracking page); 404
    alike for an unknown reference and a wrong token."""
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
def booking_pay_driver_page(request, reference: str, token: str):
    booking = booking_page_or_404(reference, token)
    records = list(booking.payment_records.all())
    paid = payment_state(records, booking.fare_due)
    context = {
        "booking": booking,
        "payment_state": paid,
        "payment_words": PAYMENT_WORDS.get(paid, paid),
        "records": records,
        "driver": _driver(booking),
        "token": token,
    }
    return render(request, "bookings/pay_driver.html", context)


@require_http_methods(["GET", "POST"])
def booking_cancel_page(request, reference: str, token: str):
    """The passenger's cancel page (from the tracking page and the booking email): GET asks
    to confirm, POST cancels with the API's rules and returns to the tracking page, which
    shows the outcome; a refusal (``not_cancellable``) is said here with its status."""
    booking = booking_page_or_404(reference, token)
    error = _cancel_from_page(request, booking) if request.method == "POST" else None
    if request.method == "POST" and error is None:
        return redirect("booking-status-page", booking.reference, token)
    context = {
        "booking": booking,
        "token": token,
        "cancellable": booking.status in CANCELLABLE,
        "error": passenger_message(error) if error else "",
    }
    return render(
        request, "bookings/cancel.html", context, status=http_status(error) if error else 200
    )


def _cancel_from_page(request, booking) -> DomainError | None:
    """Cancel as the website's caller; the refusal, if there is one."""
    caller = caller_from_request(request, source=BookingSource.WEBSITE)
    try:
        actions.booking_cancel_from_page(
            caller=caller, booking=booking, reason=request.POST.get("reason", "")[:500]
        )
    except DomainError as refused:
        return refused
    return None


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


def _book(request, quote, form: QuoteBookingForm) -> Booking | None:
    """Redeem the quote as a website booking; None with the refusal shown on the form."""
    caller = caller_from_request(request, source=BookingSource.WEBSITE)
    try:
        booking, _ = actions.booking_place_from_quote(caller=caller, **form.booking_details(quote))
    except DomainError as error:
        form.add_domain_error(error)
        return None
    return booking


@require_http_methods(["GET", "POST"])
def book_page(request):
    """The page a quote's bookingUrl opens (seed 2.3); books as source ``website``."""
    quote_id = request.POST.get("quote_id") or request.GET.get("quote", "")
    quote = quote_get_or_none(quote_id)
    expired = quote is not None and quote.is_expired()
    form = QuoteBookingForm(request.POST if request.method == "POST" else None)
    if quote is not None and not expired and form.is_valid():
        booking = _book(request, quote, form)
        if booking is not None:
            token = booking_page_token(booking.reference)
            return redirect("booking-status-page", booking.reference, token)
    context = {"quote": quote, "quote_id": quote_id, "form": form, "expired": expired}
    status = 410 if expired else 404 if quote is None else 200
    return render(request, BOOK_TEMPLATE, context, status=status)
