"""Publishing council tariffs and operator rates to connected dispatch platforms (seed 6.5,
contract 5.3).

:func:`tariff_publish` is the one service every door calls after changing a tariff: the
back office (save and delete, ``pricing.admin``) and the loader (``load_tariffs``). It
builds the tariff's published form, compares it with the last version published, and
only when it differs records a new :class:`TariffPublication` and, after commit, sends
``pricing.signals.tariff_published`` (whose subscriber in partners delivers the signed
``tariff.updated`` webhooks). So loading unchanged data twice publishes nothing the
second time, and an admin save that changed nothing a platform sees sends nothing.

Published: council tariffs and operator rates (the network's own rate and operators'
approved rates), as ``kind`` ``council`` or ``operator``. A tariff is in force while it is
active and its lifecycle is ``current`` (what quotes may use); one that is switched off,
no longer current, deleted, or no longer of a published kind is published once more as
withdrawn (``"status": "withdrawn"``, no bands or extras). A tariff never in force is
never published.
"""

from __future__ import annotations

import hashlib
import json
from decimal import Decimal

from django.db import IntegrityError, transaction
from django.utils import timezone

from pricing.models import (
    ESTIMATED_BASES,
    Tariff,
    TariffKind,
    TariffLifecycle,
    TariffPublication,
)
from pricing.signals import tariff_published

PUBLISHED_KINDS = (TariffKind.COUNCIL, TariffKind.OPERATOR)
IN_FORCE = "current"
WITHDRAWN = "withdrawn"


def _number(value: Decimal | None) -> float | int | None:
    # Contract 1: amounts are JSON numbers; Decimal -> str -> float keeps 0.2 as 0.2.
    if value is None:
        return None
    number = float(str(value))
    return int(number) if number.is_integer() else number


def _band(band) -> dict:
    return {
        "name": band.name,
        "windows": band.windows,
        "excludes": band.excludes,
        "appliesAfterDistanceM": _number(band.applies_after_distance_m),
        "untilDistanceM": _number(band.until_distance_m),
        "flagFallGBP": _number(band.flag_fall_gbp),
        "flagFallDistanceM": _number(band.flag_fall_distance_m),
        "flagFallSeconds": _number(band.flag_fall_seconds),
        "incrementDistanceM": _number(band.increment_distance_m),
        "incrementPriceGBP": _number(band.increment_price_gbp),
        "waitingSecondsPerIncrement": _number(band.waiting_seconds_per_increment),
        # null: a waiting increment costs incrementPriceGBP (the registry's own rule)
        "waitingIncrementPriceGBP": _number(band.waiting_increment_price_gbp),
        "multiplierOf": band.multiplier_of or None,
        "multiplier": _number(band.multiplier),
        "uncertain": list(band.uncertain or []),
    }


def _extra(extra) -> dict:
    return {
        "name": extra.name,
        "kind": extra.kind,
        "amountGBP": _number(extra.amount_gbp),
        "maxGBP": _number(extra.max_gbp),
        "percent": _number(extra.percent),
        "passengerThreshold": extra.passenger_threshold,
        "windows": extra.windows,
        "uncertain": extra.uncertain,
        "status": extra.status_text or None,
    }


def _effective_from(tariff: Tariff) -> str | None:
    # As quotes' tariffSource shows it: the date, or the source's wording when partial.
    if tariff.effective_date_text:
        return tariff.effective_date_text
    return tariff.effective_from.isoformat() if tariff.effective_from else None


def _in_force(tariff: Tariff | None) -> bool:
    """Published while it may price journeys: active, current, not yet replaced (a table
    announced for a later date is published ahead, with its ``effectiveFrom``)."""
    return (
        tariff is not None
        and tariff.kind in PUBLISHED_KINDS
        and tariff.is_active
        and tariff.lifecycle == TariffLifecycle.CURRENT
        and (tariff.effective_to is None or tariff.effective_to > timezone.localdate())
    )


def tariff_published_form(tariff: Tariff) -> dict:
    """The ``data`` of a ``tariff.updated`` event for ``tariff`` in force, without version."""
    form: dict = {"tariffId": tariff.reference, "kind": tariff.kind}
    if tariff.kind == TariffKind.COUNCIL:
        form["authority"] = tariff.authority
    else:
        form["operator"] = tariff.account.name if tariff.account_id else tariff.authority
    form.update(
        name=tariff.name,
        effectiveFrom=_effective_from(tariff),
        status=IN_FORCE,
        bands=[_band(b) for b in tariff.bands.all()],
        extras=[_extra(e) for e in tariff.extras.all()],
    )
    if tariff.basis in ESTIMATED_BASES:
        # An estimate is never passed off as the authority's own table (issue 33).
        form.update(basis=tariff.basis, estimate=tariff.estimate)
    return form


def _withdrawn_form(last: dict) -> dict:
    kept = ("tariffId", "kind", "authority", "operator", "name", "effectiveFrom")
    return {
        **{k: last[k] for k in kept if k in last},
        "status": WITHDRAWN,
        "bands": [],
        "extras": [],
    }


def _hash(form: dict) -> str:
    return hashlib.sha256(json.dumps(form, sort_keys=True).encode()).hexdigest()


def _tariffs_with_figures():
    return Tariff.objects.select_related("account").prefetch_related("bands", "extras")


def tariff_publish(*, reference: str) -> TariffPublication | None:
    """Publish the tariff ``reference`` as it now stands, if that changed anything.

    Guarantees: a new version (last + 1) is recorded only when the published form differs
    from the last version's (content hash), so repeating a load or a save publishes
    nothing; a tariff that is gone or no longer in force is published once as withdrawn,
    and one never published stays unpublished; ``tariff_published`` is sent only after
    the transaction commits, so no platform hears of a version that rolled back. Two
    concurrent publishes of one tariff cannot both take a version (unique
    (reference, version)); the loser publishes nothing. Returns the new version, or None.
    """
    tariff = _tariffs_with_figures().filter(reference=reference).first()
    return _publish(
        reference=reference, tariff=tariff, last=tariff_publication_latest(reference=reference)
    )


def _publish(
    *, reference: str, tariff: Tariff | None, last: TariffPublication | None
) -> TariffPublication | None:
    if _in_force(tariff):
        form = tariff_published_form(tariff)
    elif last is None:
        return None  # never in force, never published: nothing to withdraw
    else:
        form = _withdrawn_form(last.data)
    content_hash = _hash(form)
    if last is not None and last.content_hash == content_hash:
        return None
    version = 1 if last is None else last.version + 1
    try:
        with transaction.atomic():
            publication = TariffPublication.objects.create(
                reference=reference,
                version=version,
                content_hash=content_hash,
                withdrawn=form["status"] == WITHDRAWN,
                data={**form, "version": version},
            )
            transaction.on_commit(
                lambda: tariff_published.send(sender=TariffPublication, publication=publication),
                robust=True,
            )
    except IntegrityError:
        return None  # a concurrent publish of this tariff took the version
    return publication


def tariffs_publish_all() -> list[TariffPublication]:
    """Publish every tariff, and withdraw every published one that is gone (the loader
    runs this, so a first load publishes what was loaded before this existed).

    The same rule as :func:`tariff_publish`, read in bulk: a query for the tariffs with
    their figures and one for the latest versions, then a write per changed tariff only.
    """
    tariffs = {t.reference: t for t in _tariffs_with_figures()}
    latest: dict[str, TariffPublication] = {}
    for publication in TariffPublication.objects.order_by("reference", "version"):
        latest[publication.reference] = publication
    published = []
    for reference in sorted(tariffs.keys() | latest.keys()):
        publication = _publish(
            reference=reference, tariff=tariffs.get(reference), last=latest.get(reference)
        )
        if publication is not None:
            published.append(publication)
    return published


def tariff_publication_latest(*, reference: str) -> TariffPublication | None:
    """The version of ``reference`` platforms hold now (withdrawn ones included)."""
    return TariffPublication.objects.filter(reference=reference).order_by("-version").first()
