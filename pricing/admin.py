"""Back office for tariffs (editable, with bands, extras and areas inline) and quotes
(read-only: a quote's fare is frozen at issue, contract 2.4)."""

from __future__ import annotations

from django.contrib import admin

from pricing.catalogue import tariff_compiled_get
from pricing.models import Quote, Tariff, TariffArea, TariffBand, TariffExtra


class TariffBandInline(admin.StackedInline):
    model = TariffBand
    extra = 0
    fields = (
        ("position", "name"),
        ("flag_fall_gbp", "flag_fall_distance_m", "flag_fall_seconds"),
        ("increment_price_gbp", "increment_distance_m", "waiting_seconds_per_increment"),
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


class TariffAreaInline(admin.TabularInline):
    model = TariffArea
    extra = 0


@admin.register(Tariff)
class TariffAdmin(admin.ModelAdmin):
    list_display = (
        "reference",
        "authority",
        "kind",
        "lifecycle",
        "status_text",
        "effective_from",
        "effective_date_text",
        "complete",
        "is_active",
        "account",
    )
    list_filter = ("kind", "lifecycle", "is_active", "authority")
    search_fields = ("reference", "name", "authority", "status_text")
    raw_id_fields = ("account",)
    readonly_fields = ("created_at", "updated_at", "raw")
    inlines = [TariffBandInline, TariffExtraInline, TariffAreaInline]

    @admin.display(boolean=True, description="All figures known")
    def complete(self, tariff: Tariff) -> bool:
        compiled = tariff_compiled_get(tariff)
        bands = compiled.time_bands + compiled.tail_bands
        return all(b.is_complete or b.multiplier is not None for b in bands)


@admin.register(Quote)
class QuoteAdmin(admin.ModelAdmin):
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
