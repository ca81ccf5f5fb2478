"""Back office for drivers: approval, licences, vehicles and corridors."""

from __future__ import annotations

from django import forms
from django.contrib import admin, messages
from django.utils import timezone

from core.admin_actions import BackOfficeAdmin
from drivers.models import Corridor, Driver, PositionSample, TrackerDevice, Vehicle
from drivers.selectors import driver_maps_key_state
from drivers.services import driver_approve, driver_maps_key_set


class DriverAdminForm(forms.ModelForm):
    """The driver's own maps API key (seed 8.5) is write-only: a new one can be typed in
    (never echoed back) or the current one removed; the page shows only whether one is
    set and its last four characters."""

    new_maps_api_key = forms.CharField(
        label="New maps API key",
        required=False,
        max_length=500,
        strip=True,
        widget=forms.PasswordInput(render_value=False, attrs={"autocomplete": "off"}),
        help_text="Replaces the stored key. It is stored encrypted and never shown again.",
    )
    remove_maps_api_key = forms.BooleanField(label="Remove the maps API key", required=False)

    class Meta:
        model = Driver
        fields = ("name",)  # the admin's fieldsets choose the model fields

    def clean_new_maps_api_key(self) -> str:
        key = self.cleaned_data["new_maps_api_key"]
        if any(c.isspace() for c in key):
            raise forms.ValidationError("A maps API key has no spaces.")
        return key


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
class DriverAdmin(BackOfficeAdmin):
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
    form = DriverAdminForm
    readonly_fields = ("approved_at", "last_seen_at", "created_at", "maps_api_key")
    raw_id_fields = ("user",)
    inlines = [VehicleInline, CorridorInline]
    actions = ["approve_drivers"]
    fieldsets = (
        (None, {"fields": ("name", "phone", "email", "payment_link", "user")}),
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
        (
            "Maps API key (seed 8.5)",
            {"fields": ("maps_api_key", "new_maps_api_key", "remove_maps_api_key")},
        ),
        ("Other", {"fields": ("created_at",)}),
    )

    @admin.display(description="Maps API key")
    def maps_api_key(self, driver: Driver) -> str:
        return driver_maps_key_state(driver)

    def save_model(self, request, obj, form, change):
        super().save_model(request, obj, form, change)
        if form.cleaned_data.get("remove_maps_api_key"):
            driver_maps_key_set(driver=obj, key="")
        elif form.cleaned_data.get("new_maps_api_key"):
            driver_maps_key_set(driver=obj, key=form.cleaned_data["new_maps_api_key"])

    @admin.action(
        description="Approve selected drivers (starts the free trial)", permissions=["change"]
    )
    def approve_drivers(self, request, queryset):
        approved = sum(driver_approve(driver=driver) for driver in queryset)
        skipped = queryset.count() - approved
        self.message_user(request, f"Approved {approved} driver(s).", messages.SUCCESS)
        if skipped:
            self.message_user(
                request, f"{skipped} driver(s) were not waiting for approval.", messages.WARNING
            )


@admin.register(Vehicle)
class VehicleAdmin(BackOfficeAdmin):
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


@admin.register(PositionSample)
class PositionSampleAdmin(BackOfficeAdmin):
    """The sampled trail of live jobs (issue 27): evidence, never edited."""

    list_display = ("driver", "booking", "at", "lat", "lng", "speed", "accuracy")
    list_filter = ("at",)
    search_fields = ("booking__reference",)
    list_select_related = ("driver", "booking")
    raw_id_fields = ("driver", "booking")

    def has_add_permission(self, request) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False


@admin.register(TrackerDevice)
class TrackerDeviceAdmin(BackOfficeAdmin):
    """Drivers' Traccar Client apps. Tokens are issued (and shown once) by
    ``manage.py tracker_device_issue``; deleting a device stops its reports."""

    list_display = ("device_id", "driver", "created_at")
    search_fields = ("device_id", "driver__name")
    raw_id_fields = ("driver",)
    readonly_fields = ("device_id", "driver", "created_at")

    def has_add_permission(self, request) -> bool:
        return False
