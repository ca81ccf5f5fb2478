"""The signed accept/decline link of a job card, for drivers without the app (contract 6).

The signed token stands in for the driver's login: it names one offer and expires.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.core import signing

from bookings.models import Booking
from core.errors import DomainError
from dispatch.links import offer_id_from_token
from dispatch.models import Offer, OfferStatus
from dispatch.services.offers import offer_accept, offer_decline

DECISION_MESSAGES = {
    "accept": "You have accepted this job.",
    "decline": "You have declined this job.",
}


@dataclass(frozen=True)
class OfferLinkVisit:
    """The offer as the link's holder sees it, after their decision if they made one;
    ``error`` says why a decision was refused (the page still shows the offer)."""

    offer: Offer
    message: str = ""
    error: DomainError | None = None

    @property
    def booking(self) -> Booking:
        return self.offer.booking

    @property
    def is_open(self) -> bool:
        return self.offer.status == OfferStatus.OPEN

    @property
    def accepted(self) -> bool:
        """Passenger contact details are shown only once the driver has accepted."""
        return self.offer.status == OfferStatus.ACCEPTED


def offer_link_offer(*, token: str) -> Offer:
    """The offer a link names; 410 ``offer_link_expired``, 404 ``offer_not_found``."""
    try:
        offer_id = offer_id_from_token(token)
    except signing.SignatureExpired:
        raise DomainError("offer_link_expired", "This job link has expired.") from None
    except (signing.BadSignature, ValueError):
        raise DomainError("offer_not_found", "This job link is not valid.") from None
    offer = Offer.objects.select_related("booking", "driver", "vehicle").filter(pk=offer_id).first()
    if offer is None or offer.driver is None:
        raise DomainError("offer_not_found", "This job link is not valid.")
    return offer


def offer_link_visit(*, token: str, decision: str | None = None) -> OfferLinkVisit:
    """Open a job-card link and, with ``decision`` ("accept" or "decline"), answer it as
    the offer's driver through the same services as the app (offer_accept/offer_decline).

    Guarantees: a link answers only the offer it was signed for, as that offer's driver;
    a refused answer (closed offer, driver busy, no such decision) changes nothing and is
    reported in ``error``.
    """
    offer = offer_link_offer(token=token)
    if decision is None:
        return OfferLinkVisit(offer=offer)
    answer = {"accept": offer_accept, "decline": offer_decline}.get(decision)
    try:
        if answer is None:
            raise DomainError("invalid_input", "Choose accept or decline.")
        answer(offer_id=offer.pk, driver=offer.driver)
    except DomainError as error:
        visit = OfferLinkVisit(offer=offer, message=error.detail, error=error)
    else:
        visit = OfferLinkVisit(offer=offer, message=DECISION_MESSAGES[decision])
    offer.refresh_from_db()
    offer.booking.refresh_from_db()
    return visit
