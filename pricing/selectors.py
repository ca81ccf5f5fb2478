"""Read-side queries of the pricing app: which tariff prices a journey, quotes to redeem."""

from __future__ import annotations

import datetime as dt
import math
import uuid
from decimal import Decimal

from django.utils import timezone

from core.errors import DomainError
from pricing.catalogue import Catalogue, tariff_catalogue_get
from pricing.fares import CompiledTariff
from pricing.gazetteer import Place
from pricing.models import Quote
from pricing.routing import great_circle_m


def _area_ratio(tariff: CompiledTariff, place: Place) -> float:
    """How deep inside the tariff's area the place is: < 1 inside, smaller is more central."""
    best = math.inf
    for lat, lng, radius_km in tariff.areas:
        best = min(best, great_circle_m(lat, lng, place.lat, place.lng) / (radius_km * 1000))
    return best


COUNCILS_AT_CACHE_SIZE = 4096


def _councils_at(catalogue: Catalogue, pickup: Place) -> list[CompiledTariff]:
    """The councils whose area holds the pickup, most central first (remembered per
    catalogue: the same stations and airports are priced again and again)."""
    key = (pickup.lat, pickup.lng)
    councils = catalogue.councils_at.get(key)
    if councils is None:
        local = [(ratio, t) for t in catalogue.councils if (ratio := _area_ratio(t, pickup)) <= 1]
        # Stable sort keeps newest-first within one council (same areas, same ratio).
        councils = [t for _, t in sorted(local, key=lambda pair: round(pair[0], 3))]
        if len(catalogue.councils_at) >= COUNCILS_AT_CACHE_SIZE:
            catalogue.councils_at.clear()
        catalogue.councils_at[key] = councils
    return councils


def tariff_select(
    *,
    pickup: Place,
    distance_m: Decimal,
    depart_at: dt.datetime,
    account=None,
) -> CompiledTariff:
    """The tariff that prices a journey (issue: pricing), first that can price it of:

    1. the account's own approved rate, when the job comes from an operator or partner;
    2. abroad (a non-UK pickup, only reached with ``worldwide``): the worldwide rate;
    3. the council whose area contains the pickup (the most central area when several
       overlap), its current table with the latest effective date;
    4. the network's own approved operator rate.

    Only ``current`` tariffs take part, and a tariff missing a figure this journey needs
    is skipped (shared/data/README.md), never priced with an invented figure.
    Raises DomainError ``tariff_incomplete`` when nothing can price the journey.
    """
    catalogue = tariff_catalogue_get()
    candidates: list[CompiledTariff] = []
    if account is not None:
        candidates += catalogue.by_account.get(account.pk, [])
    if not pickup.in_uk:
        candidates += catalogue.worldwide
    else:
        candidates += _councils_at(catalogue, pickup)
    candidates += catalogue.operator
    for tariff in candidates:
        if tariff.can_price(depart_at.astimezone(tariff.tz), distance_m):
            return tariff
    raise DomainError(
        "tariff_incomplete",
        "No loaded tariff can price this journey at that time; the tables for this area "
        "are missing figures.",
    )


def quote_get_for_redemption(quote_id) -> Quote:
    """The quote behind ``quote_id`` while it may still be redeemed (contract 2.3).

    Raises DomainError ``quote_not_found`` for unknown or malformed ids and 410
    ``quote_expired`` once its 24 hours are over. Redeeming once is enforced by the
    booking's one-to-one to the quote, not here.
    """
    try:
        pk = quote_id if isinstance(quote_id, uuid.UUID) else uuid.UUID(str(quote_id))
    except (TypeError, ValueError, AttributeError):
        raise DomainError("quote_not_found", f"No quote with id {quote_id!s:.64}.") from None
    quote = Quote.objects.filter(pk=pk).first()
    if quote is None:
        raise DomainError("quote_not_found", f"No quote with id {pk}.")
    if quote.is_expired(timezone.now()):
        expired = quote.expires_at.astimezone(dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
        raise DomainError("quote_expired", f"Quote {pk} expired at {expired}.")
    return quote
