"""Read-side queries of the pricing app: which tariff prices a journey, quotes to redeem."""

from __future__ import annotations

import datetime as dt
import uuid
from decimal import Decimal

from django.utils import timezone

from core.errors import DomainError
from pricing.catalogue import Catalogue, tariff_catalogue_get
from pricing.compiled_tariffs import CompiledTariff
from pricing.gazetteer import Place
from pricing.holidays import nation_of_district
from pricing.licensing import District, district_at
from pricing.models import BASIS_RANK, Quote


def _preference(tariff: CompiledTariff) -> tuple[int, int]:
    # Best basis first (table, uprated, calibrated: pricing.models.TariffBasis), then the
    # latest effective date.
    return BASIS_RANK[tariff.basis], -(tariff.effective_from or dt.date.min).toordinal()


def councils_for(catalogue: Catalogue, district: District | None) -> list[CompiledTariff]:
    """The council tables of the pickup's district (pricing.licensing) in the order they
    are tried: the best basis first (the authority's complete ``table``, then an
    ``uprated`` one, then a ``calibrated`` one: contract 2.1), and within a basis the
    newest effective date first; those naming the district and those covering all of its
    authority's alike. This is the one place the bases are ranked."""
    if district is None:
        return []
    tables = catalogue.councils_by_district.get(district.code, [])
    tables = tables + catalogue.councils_by_authority.get(district.authority, [])
    if len(tables) > 1:
        tables.sort(key=_preference)
    return tables


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
    3. the tables of the licensing authority whose area holds the pickup
       (:func:`pricing.licensing.licensing_authority_at`) in force on the pickup's date
       (Europe/London), best basis first (:func:`councils_for`: its complete ``table``,
       else ``uprated``, else ``calibrated``), the latest effective first within a basis:
       an announced rise prices the journeys from its first day, and a replaced table
       prices none;
    4. the network's own approved operator rate (basis ``network``).

    Only ``current`` tariffs take part, and a tariff missing a figure this journey needs
    is skipped (shared/data/README.md), never priced with an invented figure.
    Raises DomainError ``tariff_incomplete`` when nothing can price the journey.
    """
    catalogue = tariff_catalogue_get()
    district = district_at(pickup.lat, pickup.lng) if pickup.in_uk else None
    nation = nation_of_district(district.code if district else None)
    candidates: list[CompiledTariff] = []
    if account is not None:
        candidates += catalogue.by_account.get(account.pk, [])
    if not pickup.in_uk:
        candidates += catalogue.worldwide
    else:
        candidates += councils_for(catalogue, district)
    candidates += catalogue.operator
    for tariff in candidates:
        local = depart_at.astimezone(tariff.tz)
        if tariff.in_force_on(local.date()) and tariff.can_price(local, distance_m, nation):
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
