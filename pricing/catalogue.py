"""Compiled tariffs, cached per process (issue: pricing, "precompute tariff bands").

Tariffs change rarely and are read on every quote, so each process keeps them compiled
(:mod:`pricing.fares` dataclasses). Freshness is checked with one cheap aggregate query per
check (row count and latest ``updated_at``), which holds across processes and admin edits:
editing a band, extra or area touches its tariff's ``updated_at`` (signals below). The
check runs at most every ``PRICING_CATALOGUE_CHECK_SECONDS`` per process (an edit in this
process is seen at once; one in another process within that many seconds), so a quote
does not pay a database round trip for it.
"""

from __future__ import annotations

import datetime as dt
import threading
import time
from dataclasses import dataclass, field
from decimal import Decimal

from django.conf import settings
from django.db.models import Count, Max
from django.db.models.signals import post_delete, post_save
from django.dispatch import receiver
from django.utils import timezone

from core.localtime import local_zone
from pricing.compiled_tariffs import CompiledBand, CompiledExtra, CompiledTariff
from pricing.holidays import nation_of_district
from pricing.models import (
    ESTIMATED_BASES,
    Tariff,
    TariffBand,
    TariffBasis,
    TariffExtra,
    TariffKind,
    TariffLifecycle,
    TariffSourceSnapshot,
    snapshot_content_remember,
)
from pricing.tariff_snapshots import source_digest
from pricing.tariff_windows import windows_compile


def tariff_source(tariff: Tariff) -> dict:
    """tariffSource as quotes show it (contract 2.1), with the data's status and
    uncertainty marks kept visible (shared/data/README.md)."""
    effective = tariff.effective_from.isoformat() if tariff.effective_from else None
    if tariff.effective_date_text:
        effective = tariff.effective_date_text
    sources = tariff.sources or []
    source = {
        "kind": tariff.kind,
        "basis": tariff_basis(tariff),
        "name": tariff.authority,
        "reference": tariff.reference,
        "effectiveFrom": effective,
        "status": tariff.status_text or tariff.get_lifecycle_display(),
        "uncertain": list(tariff.uncertain or []),
        "sourceUrl": sources[0].get("address") if sources else None,
    }
    if source["basis"] in ESTIMATED_BASES:
        source["estimate"] = dict(tariff.estimate or {})
    return source


def tariff_basis(tariff: Tariff) -> str:
    """Contract 2.1: a council's tariff keeps its own basis; every other rate (the
    network's, an operator's or partner's own) is ``network``."""
    return tariff.basis if tariff.kind == TariffKind.COUNCIL else TariffBasis.NETWORK


def _d(value) -> Decimal | None:
    return None if value is None else Decimal(value)


def _stored_digests(digests) -> set[str]:
    return set(TariffSourceSnapshot.objects.filter(pk__in=digests).values_list("pk", flat=True))


def tariff_compile(tariff: Tariff, *, stored: set[str] | None = None) -> CompiledTariff:
    """ORM tariff (with bands and extras prefetched or fetched) -> plain structure.

    ``stored``: the snapshot keys known to exist (else one query looks this one up)."""
    source = tariff_source(tariff)
    digest = source_digest(source)
    if digest in (_stored_digests([digest]) if stored is None else stored):
        snapshot_content_remember(digest, source)
    else:
        digest = None
    time_bands, tail_bands = [], []
    for band in tariff.bands.all():
        compiled = CompiledBand(
            name=band.name,
            position=band.position,
            windows=windows_compile(band.windows or []),
            excludes=windows_compile(band.excludes or []),
            flag_fall=_d(band.flag_fall_gbp),
            flag_fall_distance=_d(band.flag_fall_distance_m),
            increment_distance=_d(band.increment_distance_m),
            increment_price=_d(band.increment_price_gbp),
            increment_seconds=_d(band.waiting_seconds_per_increment),
            waiting_increment_price=_d(band.waiting_increment_price_gbp),
            until_distance=_d(band.until_distance_m),
            after_distance=_d(band.applies_after_distance_m),
            multiplier=_d(band.multiplier),
            multiplier_of=band.multiplier_of,
            uncertain=tuple(band.uncertain or ()),
        )
        (tail_bands if compiled.is_tail else time_bands).append(compiled)
    extras = tuple(
        CompiledExtra(
            name=extra.name,
            kind=extra.kind,
            amount=_d(extra.amount_gbp),
            percent=_d(extra.percent),
            threshold=extra.passenger_threshold,
            windows=windows_compile(extra.windows or []),
            uncertain=extra.uncertain,
            place=extra.place,
        )
        for extra in tariff.extras.all()
        if extra.kind != "on_request"
        and (extra.amount_gbp is not None or extra.percent or extra.kind == "time_surcharge")
    )
    return CompiledTariff(
        id=tariff.pk,
        version=tariff.updated_at.isoformat() if tariff.updated_at else "",
        reference=tariff.reference,
        kind=tariff.kind,
        name=tariff.name,
        authority=tariff.authority,
        tz=local_zone(),
        time_bands=tuple(sorted(time_bands, key=lambda b: b.position)),
        tail_bands=tuple(sorted(tail_bands, key=lambda b: b.after_distance)),
        extras=extras,
        source=source,
        source_digest=digest,
        areas_gss=tuple(tariff.areas_gss or ()),
        account_id=tariff.account_id,
        effective_from=tariff.effective_from,
        effective_to=tariff.effective_to,
        nation=nation_of_district((tariff.areas_gss or [None])[0]),
        lifecycle=tariff.lifecycle,
        basis=tariff_basis(tariff),
    )


@dataclass
class Catalogue:
    """Active tariffs by role, each list newest effective date first."""

    fingerprint: tuple = ()
    councils: list[CompiledTariff] = field(default_factory=list)
    operator: list[CompiledTariff] = field(default_factory=list)
    worldwide: list[CompiledTariff] = field(default_factory=list)
    by_account: dict[int, list[CompiledTariff]] = field(default_factory=dict)
    # Council tables by the ONS district codes they name, and by authority (a table that
    # names no district covers all of its authority's).
    councils_by_district: dict[str, list[CompiledTariff]] = field(default_factory=dict)
    councils_by_authority: dict[str, list[CompiledTariff]] = field(default_factory=dict)


_compiled: dict[tuple[int, str], CompiledTariff] = {}
_catalogue = Catalogue()
_lock = threading.Lock()
_checked_at = 0.0


def _check_interval() -> float:
    return float(settings.PRICING_CATALOGUE_CHECK_SECONDS)


def _newest_first(tariff: CompiledTariff):
    return -(tariff.effective_from or dt.date.min).toordinal()


def tariff_catalogue_get() -> Catalogue:
    """The compiled active tariffs; rebuilt only when a tariff changed (one query)."""
    global _catalogue, _checked_at
    now = time.monotonic()
    if _catalogue.fingerprint and now - _checked_at < _check_interval():
        return _catalogue
    _checked_at = now
    stats = Tariff.objects.aggregate(count=Count("id"), last=Max("updated_at"))
    fingerprint = (stats["count"], stats["last"])
    if _catalogue.fingerprint == fingerprint:
        return _catalogue
    with _lock:
        tariffs = Tariff.objects.filter(is_active=True).prefetch_related("bands", "extras")
        catalogue = Catalogue(fingerprint=fingerprint)
        pending = [t for t in tariffs if (t.pk, t.updated_at.isoformat()) not in _compiled]
        stored = _stored_digests([source_digest(tariff_source(t)) for t in pending])
        for tariff in tariffs:
            key = (tariff.pk, tariff.updated_at.isoformat())
            compiled = _compiled.get(key)
            if compiled is None:
                compiled = _compiled[key] = tariff_compile(tariff, stored=stored)
            if tariff.lifecycle != TariffLifecycle.CURRENT:
                continue
            if tariff.account_id is not None:
                catalogue.by_account.setdefault(tariff.account_id, []).append(compiled)
            elif tariff.kind == TariffKind.COUNCIL:
                catalogue.councils.append(compiled)
            elif tariff.kind == TariffKind.WORLDWIDE:
                catalogue.worldwide.append(compiled)
            else:
                catalogue.operator.append(compiled)
        for group in (
            catalogue.councils,
            catalogue.operator,
            catalogue.worldwide,
            *catalogue.by_account.values(),
        ):
            group.sort(key=_newest_first)
        for council in catalogue.councils:
            for code in council.areas_gss:
                catalogue.councils_by_district.setdefault(code, []).append(council)
            if not council.areas_gss:
                catalogue.councils_by_authority.setdefault(council.authority, []).append(council)
        _catalogue = catalogue
    return catalogue


def tariff_compiled_get(tariff: Tariff) -> CompiledTariff:
    """One tariff compiled, cached until it is saved again (any lifecycle)."""
    key = (tariff.pk, tariff.updated_at.isoformat())
    compiled = _compiled.get(key)
    if compiled is None:
        compiled = _compiled[key] = tariff_compile(tariff)
    return compiled


def tariff_catalogue_clear() -> None:
    """Forget every compiled tariff (tests roll back rows the fingerprint may not see)."""
    global _catalogue, _checked_at
    _compiled.clear()
    _catalogue = Catalogue()
    _checked_at = 0.0


def _tariff_forget(tariff_id: int) -> None:
    # This process sees its own edits at once, even when the edit's timestamp equals the
    # one it replaces (a coarse or stepped clock): its compiled copies and the catalogue's
    # fingerprint are dropped, not compared. Other processes see it within the interval.
    global _catalogue, _checked_at
    with _lock:
        for key in [key for key in _compiled if key[0] == tariff_id]:
            del _compiled[key]
        _catalogue = Catalogue()
        _checked_at = 0.0


def tariff_snapshot_store(tariff: Tariff) -> str:
    """Store the tariff's tariffSource part as a snapshot, if not yet stored; its key."""
    content = tariff_source(tariff)
    digest = source_digest(content)
    TariffSourceSnapshot.objects.bulk_create(
        [TariffSourceSnapshot(digest=digest, content=content)], ignore_conflicts=True
    )
    return digest


@receiver(post_save, sender=Tariff)
def _tariff_saved(sender, instance, **kwargs) -> None:
    # In the save's transaction: the snapshot exists exactly when the tariff row does.
    tariff_snapshot_store(instance)
    _tariff_forget(instance.pk)


@receiver(post_delete, sender=Tariff)
def _tariff_deleted(sender, instance, **kwargs) -> None:
    _tariff_forget(instance.pk)


@receiver([post_save, post_delete], sender=TariffBand)
@receiver([post_save, post_delete], sender=TariffExtra)
def _tariff_touch(sender, instance, **kwargs) -> None:
    # A changed band must invalidate the compiled tariff in every process: bump the parent.
    Tariff.objects.filter(pk=instance.tariff_id).update(updated_at=timezone.now())
    _tariff_forget(instance.tariff_id)
