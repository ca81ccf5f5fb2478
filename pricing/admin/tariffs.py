"""Back office for tariffs (editable, with bands and extras inline; each table's age,
last check and source shown), estimated tariffs, publications and quotes (read-only: a
quote's fare is frozen at issue, contract 2.4)."""

from __future__ import annotations

import datetime as dt

from django.contrib import admin
from django.utils import timezone
from django.utils.html import format_html

from core.admin_actions import BackOfficeAdmin
from pricing.catalogue import tariff_compiled_get
from pricing.models import (
    ESTIMATED_BASES,
    EstimatedTariff,
    Quote,
    Tariff,
    TariffBand,
    TariffExtra,
    TariffPublication,
)
from pricing.publication import tariff_publish
from pricing.staleness import STALE_AFTER_DAYS, tariff_is_stale


class TariffBandInline(admin.StackedInline):
    model = TariffBand
    extra = 0
    fields = (
        ("position", "name"),
        ("flag_fall_gbp", "flag_fall_distance_m", "flag_fall_seconds"),
        (
            "increment_price_gbp",
            "increment_distance_m",
            "waiting_seconds_per_increment",
            "waiting_increment_price_gbp",
        ),
        ("applies_after_distance_m", "until_distance_m"),
        ("multiplier_of", "multiplier"),
        "windows",
        "excludes",
        "uncertain",
        "source_units",
        "applies_raw",
    )


class TariffExtraInline(admin.TabularInline):
    model = TariffExtra
    extra = 0
    fields = (
        "position",
        "name",
        "kind",
        "amount_gbp",
        "max_gbp",
        "percent",
        "passenger_threshold",
        "windows",
        "uncertain",
        "status_text",
    )


@admin.register(Tariff)
class TariffAdmin(BackOfficeAdmin):
    list_display = (
        "reference",
        "authority",
        "kind",
        "lifecycle",
        "status_text",
        "effective_from",
        "effective_to",
        "age",
        "checked_on",
        "stale",
        "source_link",
        "complete",
        "is_active",
        "account",
    )
    list_filter = ("kind", "lifecycle", "is_active", "authority")
    search_fields = ("reference", "name", "authority", "status_text")
    raw_id_fields = ("account",)
    readonly_fields = ("created_at", "updated_at", "raw")
    inlines = [TariffBandInline, TariffExtraInline]

    def get_queryset(self, request):
        # Estimated tables are listed apart (EstimatedTariffAdmin).
        return super().get_queryset(request).exclude(basis__in=ESTIMATED_BASES)

    @admin.display(description="Age", ordering="effective_from")
    def age(self, tariff: Tariff) -> str:
        """How long the table has been (or will be) in force, from its effective date."""
        if tariff.effective_from is None:
            return tariff.effective_date_text or "date not known"
        days = (timezone.localdate() - tariff.effective_from).days
        if days < 0:
            return f"starts in {-days} days"
        years, rest = divmod(days, 365)
        return f"{years} y {rest // 30} m" if years else f"{days // 30} m {days % 30} d"

    @admin.display(boolean=True, description=f"Not checked for {STALE_AFTER_DAYS} days")
    def stale(self, tariff: Tariff) -> bool:
        return tariff_is_stale(tariff)

    @admin.display(description="Source")
    def source_link(self, tariff: Tariff) -> str:
        sources = tariff.sources or []
        if not sources or not sources[0].get("address"):
            return "-"
        first = sources[0]
        return format_html(
            '<a href="{}" rel="noopener noreferrer">{}</a>',
            first["address"],
            (first.get("title") or first["address"])[:60],
        )

    def save_related(self, request, form, formsets, change):
        # Bands and extras are saved with the inlines, after the tariff itself: publish
        # only once everything is saved (contract 5.3, pricing.publication).
        super().save_related(request, form, formsets, change)
        tariff = form.instance
        if change and "reference" in form.changed_data:
            tariff_publish(reference=form.initial["reference"])  # the old id is withdrawn
        tariff_publish(reference=tariff.reference)

    def delete_model(self, request, obj):
        super().delete_model(request, obj)
        tariff_publish(reference=obj.reference)

    def delete_queryset(self, request, queryset):
        references = list(queryset.values_list("reference", flat=True))
        super().delete_queryset(request, queryset)
        for reference in references:
            tariff_publish(reference=reference)

    @admin.display(boolean=True, description="All figures known")
    def complete(self, tariff: Tariff) -> bool:
        compiled = tariff_compiled_get(tariff)
        bands = compiled.time_bands + compiled.tail_bands
        return all(b.is_complete or b.multiplier is not None for b in bands)


@admin.register(EstimatedTariff)
class EstimatedTariffAdmin(BackOfficeAdmin):
    """Tables estimated from an authority's published figures (uprated, calibrated): the
    method's measured error, the age of the figures, and each figure checked against the
    meter. They are rebuilt by ``manage.py load_tariffs``; edit the figures, not these."""

    list_display = (
        "reference",
        "authority",
        "basis",
        "error_pct",
        "figures_as_of",
        "figures_age",
        "effective_from",
        "effective_to",
        "is_active",
    )
    list_filter = ("basis", "is_active")
    search_fields = ("reference", "authority")
    readonly_fields = ("estimate", "raw", "sources", "uncertain", "created_at", "updated_at")
    fields = (
        "reference",
        "authority",
        "basis",
        "lifecycle",
        "is_active",
        "effective_from",
        "effective_to",
        "estimate",
        "sources",
        "uncertain",
        "raw",
    )
    inlines = [TariffBandInline]

    @admin.display(description="Error (%, day / night)")
    def error_pct(self, tariff: Tariff) -> str:
        estimate = tariff.estimate or {}
        by_band = list((estimate.get("errorPctByBand") or {}).values())
        if by_band:
            return " / ".join(f"{v}" for v in by_band)
        return str(estimate.get("errorPct", "-"))

    @admin.display(description="Figures dated")
    def figures_as_of(self, tariff: Tariff) -> str:
        return (tariff.estimate or {}).get("figuresAsOf") or str(tariff.effective_from or "-")

    @admin.display(description="Age of the figures")
    def figures_age(self, tariff: Tariff) -> str:
        text = self.figures_as_of(tariff)
        try:
            day = dt.date.fromisoformat(text)
        except ValueError:
            return "-"
        days = (timezone.localdate() - day).days
        years, rest = divmod(days, 365)
        return f"{years} y {rest // 30} m" if years else f"{days // 30} m"


@admin.register(TariffPublication)
class TariffPublicationAdmin(BackOfficeAdmin):
    """What connected dispatch platforms were sent (contract 5.3); read-only."""

    list_display = ("reference", "version", "withdrawn", "published_at")
    list_filter = ("withdrawn",)
    search_fields = ("reference",)
    readonly_fields = ("reference", "version", "content_hash", "withdrawn", "data", "published_at")

    def has_add_permission(self, request) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        return False


@admin.register(Quote)
class QuoteAdmin(BackOfficeAdmin):
    list_display = (
        "id",
        "created_at",
        "pickup_label",
        "dropoff_label",
        "passengers",
        "vehicle_type",
        "fare",
        "expires_at",
        "redeemed_at",
        "account",
        "source",
    )
    list_filter = (
        "source",
        "vehicle_type",
        "worldwide",
        "meet_and_greet",
        "created_at",
        ("redeemed_at", admin.EmptyFieldListFilter),
    )
    search_fields = ("id", "pickup", "dropoff", "pickup_label", "dropoff_label")
    date_hierarchy = "created_at"
    list_select_related = ("account",)

    def has_add_permission(self, request) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        return False
