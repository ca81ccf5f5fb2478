"""The signed accept/decline page linked from job cards, for drivers without the app."""

from __future__ import annotations

from django.core import signing
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_http_methods

from api.problems import http_status
from core.errors import DomainError
from dispatch.links import offer_id_from_token
from dispatch.models import Offer
from dispatch.services.offers import offer_accept, offer_decline


@require_http_methods(["GET", "POST"])
def offer_link_page(request: HttpRequest, token: str) -> HttpResponse:
    """GET shows the job; POST with decision=accept|decline answers the offer.

    The signed token stands in for the driver's login: it names one offer and expires.
    Passenger contact details appear only after the driver has accepted.
    """
    try:
        offer_id = offer_id_from_token(token)
    except signing.SignatureExpired:
        return render(request, "dispatch/offer_link_invalid.html", {"expired": True}, status=410)
    except (signing.BadSignature, ValueError):
        return render(request, "dispatch/offer_link_invalid.html", {"expired": False}, status=404)
    offer = Offer.objects.select_related("booking", "driver", "vehicle").filter(pk=offer_id).first()
    if offer is None or offer.driver is None:
        return render(request, "dispatch/offer_link_invalid.html", {"expired": False}, status=404)

    message, status = "", 200
    if request.method == "POST":
        decision = request.POST.get("decision")
        try:
            if decision == "accept":
                offer_accept(offer_id=offer.pk, driver=offer.driver)
                message = "You have accepted this job."
            elif decision == "decline":
                offer_decline(offer_id=offer.pk, driver=offer.driver)
                message = "You have declined this job."
            else:
                message, status = "Choose accept or decline.", 400
        except DomainError as error:
            message, status = error.detail, http_status(error)
        offer.refresh_from_db()
        offer.booking.refresh_from_db()
    context = {
        "offer": offer,
        "booking": offer.booking,
        "message": message,
        "is_open": offer.status == "open",
        "accepted": offer.status == "accepted",
    }
    return render(request, "dispatch/offer_link.html", context, status=status)
