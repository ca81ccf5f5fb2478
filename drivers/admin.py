"""Back office for drivers: approval, licences, vehicles and corridors."""

from __future__ import annotations

from django.contrib import admin, messages
from django.utils import timezone

from drivers.models import Corridor, Driver, Vehicle
from drivers.services import driver_approve


class VehicleInline(admin.TabularInline):
    model = Vehicle
    extra = 0
    fields = (
        "registration",
        "make",
        "model",
        "colour",
        "vehicle_class",
        "seats",
        "wheelchair_accessible",
        "licensing_authority",
        "plate_number",
        "plate_expiry",
        "active",
    )


class CorridorInline(admin.TabularInline):
    model = Corridor
    extra = 0


class LicenceStateFilter(admin.SimpleListFilter):
    title = "licence"
    parameter_name = "licence"

    def lookups(self, request, model_admin):
        return [("valid", "valid"), ("expired", "expired")]

    def queryset(self, request, queryset):
        today = timezone.localdate()
        if self.value() == "valid":
            return queryset.filter(licence_expiry__gte=today)
        if self.value() == "expired":
            return queryset.filter(licence_expiry__lt=today)
        return queryset


@admin.register(Driver)
class DriverAdmin(admin.ModelAdmin):
    list_display = (
        "name",
        "phone",
        "stage",
        "network",
        "base_city",
        "licensing_authority",
        "licence_expiry",
        "online",
        "last_seen_at",
        "current_jobs",
        "max_jobs",
    )
    list_filter = ("stage", "network", "online", "licensing_authority", LicenceStateFilter)
    search_fields = ("name", "phone", "email", "licence_number", "vehicles__registration")
    readonly_fields = ("approved_at", "last_seen_at", "created_at")
    raw_id_fields = ("user",)
    inlines = [VehicleInline, CorridorInline]
    actions = ["approve_drivers"]
    fieldsets = (
        (None, {"fields": ("name", "phone", "email", "user")}),
        ("Stage", {"fields": ("stage", "approved_by", "approved_at", "operator")}),
        ("Licence", {"fields": ("licensing_authority", "licence_number", "licence_expiry")}),
        (
            "Area",
            {
                "fields": (
                    "base_city",
                    "base_lat",
                    "base_lng",
                    "operating_radius_km",
                    "network",
                    "corridors",
                )
            },
        ),
        (
            "Live state",
            {
                "fields": (
                    "online",
                    "last_lat",
                    "last_lng",
                    "last_seen_at",
                    "current_jobs",
                    "max_jobs",
                )
            },
        ),
        ("Other", {"fields": ("maps_api_key", "created_at")}),
    )

    @admin.action(description="Approve selected drivers (starts the free trial)")
    def approve_drivers(self, request, queryset):
        approved = sum(driver_approve(driver=driver) for driver in queryset)
        skipped = queryset.count() - approved
        self.message_user(request, f"Approved {approved} driver(s).", messages.SUCCESS)
        if skipped:
            self.message_user(
                request, f"{skipped} driver(s) were not waiting for approval.", messages.WARNING
            )


@admin.register(Vehicle)
class VehicleAdmin(admin.ModelAdmin):
    list_display = (
        "registration",
        "make",
        "model",
        "vehicle_class",
        "seats",
        "wheelchair_accessible",
        "licensing_authority",
        "plate_expiry",
        "driver",
        "active",
    )
    list_filter = ("vehicle_class", "wheelchair_accessible", "licensing_authority", "active")
    search_fields = ("registration", "plate_number", "driver__name")
    raw_id_fields = ("driver",)
