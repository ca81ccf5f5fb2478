"""The signed accept/decline page linked from job cards, for drivers without the app."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_http_methods

from api.problems import http_status
from core.errors import DomainError
from dispatch.services.offer_links import OfferLinkVisit, offer_link_visit


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
