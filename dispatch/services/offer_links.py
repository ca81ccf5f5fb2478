"""The signed accept/decline link of a job card, for drivers without the app (contract 6).

The signed token stands in for the driver's login: it names one offer and expires.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from django.core import signing
from django.utils import timezone

from bookings.models import Booking
from core.errors import DomainError
from dispatch.links import offer_id_from_token
from dispatch.models import Offer, OfferStatus
from dispatch.services.job_cards import JobCard, job_card_get
from dispatch.services.offers import offer_accept, offer_decline

DECISION_MESSAGES = {
    "accept": "You have accepted this job.",
    "decline": "You have declined this job.",
}
# What the driver reads when an answer is refused, for every code the page can meet.
REFUSAL_MESSAGES = {
    "offer_closed": "This offer is no longer open: it has expired or was withdrawn.",
    "driver_busy": "You already hold as many jobs as you can take. Finish one first.",
    "invalid_input": "Choose Accept or Decline.",
}


@dataclass(frozen=True)
class OfferLinkVisit:
    """The offer as the link's holder sees it, after their decision if they made one;
    ``error`` says why a decision was refused (the page still shows the offer)."""

    offer: Offer
    message: str = ""
    error: DomainError | None = None
    now: datetime = field(default_factory=timezone.now)

    @property
    def booking(self) -> Booking:
        return self.offer.booking

    @property
    def card(self) -> JobCard:
        return job_card_get(offer=self.offer)

    @property
    def is_open(self) -> bool:
        """The page offers Accept and Decline only while the offer can still be answered."""
        return self.offer.is_answerable_at(self.now)

    @property
    def expired(self) -> bool:
        """Past its deadline unanswered, whether or not the timeout task has run yet."""
        return self.offer.status == OfferStatus.EXPIRED or (
            self.offer.status == OfferStatus.OPEN and not self.is_open
        )

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
        message = REFUSAL_MESSAGES.get(error.code, error.detail)
        visit = OfferLinkVisit(offer=offer, message=message, error=error)
    else:
        visit = OfferLinkVisit(offer=offer, message=DECISION_MESSAGES[decision])
    offer.refresh_from_db()
    offer.booking.refresh_from_db()
    return visit
