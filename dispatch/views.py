"""Dispatch's pages: the signed accept/decline page linked from job cards, for drivers
without the app; and the passenger's tracking page (statusUrl), which shows the booking
with where its driver is (``dispatch.selectors.booking_tracking_state``). The driver's
dashboard is ``driverapp.views``."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET, require_http_methods

from api.problems import http_status
from bookings.services import booking_pay_driver_url
from bookings.views import booking_page_or_404
from core.errors import DomainError
from dispatch.selectors import booking_tracking_state
from dispatch.services.offer_links import OfferLinkVisit, offer_link_visit

# How often the tracking page asks for news (milliseconds); the page stops once finished.
TRACKING_POLL_MS = 4000


def _page_context(visit: OfferLinkVisit) -> dict:
    return {
        "offer": visit.offer,
        "booking": visit.booking,
        "card": visit.card,
        "message": visit.message,
        "refused": visit.error is not None,
        "is_open": visit.is_open,
        "expired": visit.expired,
        "accepted": visit.accepted,
    }


@require_http_methods(["GET", "POST"])
def offer_link_page(request: HttpRequest, token: str) -> HttpResponse:
    """GET shows the job; POST with decision=accept|decline answers the offer."""
    decision = request.POST.get("decision", "") if request.method == "POST" else None
    try:
        visit = offer_link_visit(token=token, decision=decision)
    except DomainError as error:
        context = {"expired": error.code == "offer_link_expired"}
        return render(
            request, "dispatch/offer_link_invalid.html", context, status=http_status(error)
        )
    status = http_status(visit.error) if visit.error else 200
    return render(request, "dispatch/offer_link.html", _page_context(visit), status=status)


@require_GET
def booking_status_page(request: HttpRequest, reference: str, token: str) -> HttpResponse:
    """The tracking page of statusUrl; it polls ``booking_status_json`` for changes."""
    booking = booking_page_or_404(reference, token)
    context = {
        "booking": booking,
        "state": booking_tracking_state(booking),
        "pay_driver_url": booking_pay_driver_url(booking),
        "token": token,
        "poll_ms": TRACKING_POLL_MS,
    }
    return render(request, "bookings/status.html", context)


@never_cache
@require_GET
def booking_status_json(request: HttpRequest, reference: str, token: str) -> JsonResponse:
    """The tracking page's live updates: the same state the page was rendered from."""
    return JsonResponse(booking_tracking_state(booking_page_or_404(reference, token)))
