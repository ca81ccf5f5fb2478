"""Signed, expiring accept/decline links for drivers without the app (contract 6)."""

from __future__ import annotations

from django.conf import settings
from django.core import signing
from django.urls import reverse

from dispatch import conf

SALT = "dispatch.offer-link"


def offer_link_token(offer_id: int) -> str:
    return signing.TimestampSigner(salt=SALT).sign(str(offer_id))


def offer_link_path(offer_id: int) -> str:
    """The job-card page of an offer, as a path on this site (the driver dashboard)."""
    return reverse("dispatch-offer-link", args=[offer_link_token(offer_id)])


def offer_link_url(offer_id: int) -> str:
    return settings.SITE_URL + offer_link_path(offer_id)


def offer_id_from_token(token: str) -> int:
    """The offer id a link was signed for; raises signing.SignatureExpired / BadSignature."""
    value = signing.TimestampSigner(salt=SALT).unsign(
        token, max_age=conf.offer_link_max_age_seconds()
    )
    return int(value)
