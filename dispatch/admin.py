"""Back office for dispatch: the dispatch board (trail, offers, manual assignment), fleets,
operator licences and the job-card notification log; and the booking list's "Record the
flight's arrival" action (dispatch's flight check), added to bookings' admin."""

from __future__ import annotations

from django import forms
from django.contrib import admin, messages
from django.contrib.admin.helpers import ACTION_CHECKBOX_NAME
from django.template.response import TemplateResponse

from bookings.admin import BookingAdmin as BookingRecordAdmin
from bookings.models import Booking, BookingStatus, FlightStatus
from core.admin_actions import BackOfficeAdmin
from core.errors import DomainError
from core.localtime import local_time_format, local_zone
from dispatch.flight_status import FlightReport
from dispatch.models import (
    DispatchAttempt,
    DispatchBooking,
    NotificationLog,
    Offer,
    OperatorLicence,
    PartnerFleet,
)
from dispatch.services.flights import flight_update_apply
from dispatch.services.offers import booking_assign_manual, booking_redispatch
from drivers.models import APPROVED_STAGES, Driver, Vehicle


class ReadOnlyAdminMixin:
    """Trail and logs are records of what happened: viewable, never edited."""

    def has_add_permission(self, request, obj=None):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


class OfferInline(ReadOnlyAdminMixin, admin.TabularInline):
    model = Offer
    extra = 0
    fields = (
        "round",
        "tier",
        "driver",
        "vehicle",
        "fleet",
        "status",
        "dead_miles",
        "created_at",
        "expires_at",
        "responded_at",
        "released_at",
        "subcontracted_to",
    )
    readonly_fields = fields
    show_change_link = True


class DispatchAttemptInline(ReadOnlyAdminMixin, admin.TabularInline):
    model = DispatchAttempt
    extra = 0
    fields = (
        "created_at",
        "round",
        "tier",
        "outcome",
        "reason",
        "driver",
        "vehicle",
        "fleet",
        "dead_miles",
        "detail",
    )
    readonly_fields = fields
    verbose_name = "dispatch trail entry"
    verbose_name_plural = "dispatch trail"


class AssignDriverForm(forms.Form):
    driver = forms.ModelChoiceField(
        queryset=Driver.objects.filter(stage__in=APPROVED_STAGES).order_by("name"),
        help_text="Manual assignment bypasses the matcher's filters but not the job-load limit.",
    )
    vehicle = forms.ModelChoiceField(
        queryset=Vehicle.objects.filter(active=True).select_related("driver"),
        required=False,
        help_text="Blank: the driver's first active vehicle.",
    )

    def clean(self):
        cleaned = super().clean()
        driver, vehicle = cleaned.get("driver"), cleaned.get("vehicle")
        if driver and vehicle and vehicle.driver_id != driver.pk:
            raise forms.ValidationError("That vehicle belongs to another driver.")
        return cleaned


class NeedsHumanFilter(admin.SimpleListFilter):
    """The desk's queue (issue 34): bookings whose dispatch window closed with no driver
    (``booking.unassigned`` went out); they leave it once assigned or cancelled."""

    title = "needs a human"
    parameter_name = "needs_human"

    def lookups(self, request, model_admin):
        return [("yes", "Needs a human (window closed, no driver)")]

    def queryset(self, request, queryset):
        if self.value() == "yes":
            return queryset.filter(
                status=BookingStatus.NO_DRIVER, unassigned_at__isnull=False
            ).order_by("pickup_time")
        return queryset


@admin.register(DispatchBooking)
class DispatchBookingAdmin(BackOfficeAdmin):
    """The dispatch desk: bookings with their trail; manual assignment and re-dispatch.
    ``?needs_human=yes`` is the queue of jobs that need a human (``NeedsHumanFilter``)."""

    list_display = (
        "reference",
        "status",
        "pickup_time",
        "pickup",
        "dropoff",
        "passengers",
        "vehicle_type",
        "driver",
        "subcontracted_to",
        "unassigned_at",
    )
    list_filter = (NeedsHumanFilter, "status", "vehicle_type", "dispatch_queue")
    search_fields = ("reference", "job_ref", "pickup", "dropoff")
    date_hierarchy = "pickup_time"
    fields = (
        "reference",
        "status",
        "pickup_time",
        "pickup",
        "dropoff",
        "passengers",
        "vehicle_type",
        "wheelchair_access",
        "driver",
        "vehicle",
        "subcontracted_to",
        "dispatch_queue",
    )
    readonly_fields = fields
    inlines = [OfferInline, DispatchAttemptInline]
    actions = ["assign_driver", "redispatch"]

    def has_add_permission(self, request):
        return False

    def has_delete_permission(self, request, obj=None):
        return False

    @admin.action(description="Assign a driver manually", permissions=["change"])
    def assign_driver(self, request, queryset):
        if "apply" in request.POST:
            form = AssignDriverForm(request.POST)
            if form.is_valid():
                actor = f"admin:{request.user.get_username()}"
                for booking in queryset:
                    try:
                        booking_assign_manual(
                            booking_id=booking.pk,
                            driver=form.cleaned_data["driver"],
                            vehicle=form.cleaned_data["vehicle"],
                            actor=actor,
                        )
                    except DomainError as problem:
                        self.message_user(request, f"{booking}: {problem.detail}", messages.ERROR)
                    else:
                        self.message_user(
                            request,
                            f"{booking} assigned to {form.cleaned_data['driver']}.",
                            messages.SUCCESS,
                        )
                return None
        else:
            form = AssignDriverForm()
        return TemplateResponse(
            request,
            "dispatch/admin/assign_driver.html",
            {
                **self.admin_site.each_context(request),
                "title": "Assign a driver",
                "bookings": queryset,
                "form": form,
                "opts": self.model._meta,
                "action_checkbox_name": ACTION_CHECKBOX_NAME,
            },
        )

    @admin.action(description="Re-dispatch (new round through every tier)", permissions=["change"])
    def redispatch(self, request, queryset):
        actor = f"admin:{request.user.get_username()}"
        for booking in queryset.filter(status=BookingStatus.NO_DRIVER):
            booking_redispatch(booking_id=booking.pk, actor=actor)
        self.message_user(request, "Re-dispatch started for no_driver bookings.", messages.INFO)


@admin.register(Offer)
class OfferAdmin(ReadOnlyAdminMixin, BackOfficeAdmin):
    list_display = (
        "id",
        "booking",
        "round",
        "tier",
        "driver",
        "fleet",
        "status",
        "dead_miles",
        "created_at",
        "expires_at",
        "responded_at",
    )
    list_filter = ("status", "tier")
    search_fields = ("booking__reference", "driver__name", "fleet__account__name")
    list_select_related = ("booking", "driver", "fleet__account")


@admin.register(DispatchAttempt)
class DispatchAttemptAdmin(ReadOnlyAdminMixin, BackOfficeAdmin):
    """The dispatch trail; filter one booking with ?booking__id__exact= or by reference."""

    list_display = (
        "created_at",
        "booking",
        "round",
        "tier",
        "outcome",
        "reason",
        "driver",
        "fleet",
        "dead_miles",
        "detail",
    )
    list_filter = ("outcome", "reason", "tier")
    search_fields = ("booking__reference",)
    list_select_related = ("booking", "driver", "fleet__account")


@admin.register(NotificationLog)
class NotificationLogAdmin(ReadOnlyAdminMixin, BackOfficeAdmin):
    list_display = (
        "created_at",
        "channel",
        "to",
        "driver",
        "booking",
        "status",
        "cost_gbp",
        "provider_sid",
        "attempts",
    )
    list_filter = ("channel", "status")
    search_fields = ("to", "booking__reference", "driver__name", "provider_sid")
    list_select_related = ("driver", "booking")


@admin.register(PartnerFleet)
class PartnerFleetAdmin(BackOfficeAdmin):
    list_display = (
        "account",
        "active",
        "coverage",
        "coverage_radius_km",
        "max_passengers",
        "wheelchair_accessible",
    )
    list_filter = ("active", "wheelchair_accessible")
    search_fields = ("account__name", "account__slug", "coverage")
    raw_id_fields = ("account",)


@admin.register(OperatorLicence)
class OperatorLicenceAdmin(BackOfficeAdmin):
    list_display = ("account", "licensing_authority", "licence_number", "licence_expiry")
    search_fields = ("account__name", "licence_number", "licensing_authority")
    raw_id_fields = ("account",)


class FlightArrivalForm(forms.Form):
    """A flight's arrival as the back office learns it (issue 15): the pickup follows."""

    status = forms.ChoiceField(choices=FlightStatus.choices)
    landing_at = forms.DateTimeField(
        required=False,
        label="Landing (UK time)",
        help_text="Actual landing when landed, else the latest estimate. YYYY-MM-DD HH:MM.",
    )
    terminal = forms.CharField(max_length=20, required=False)

    def clean(self):
        cleaned = super().clean()
        landing_needed = cleaned.get("status") not in (
            FlightStatus.CANCELLED,
            FlightStatus.DIVERTED,
        )
        if landing_needed and not cleaned.get("landing_at"):
            self.add_error("landing_at", "Required unless the flight is cancelled or diverted.")
        if cleaned.get("landing_at"):
            # Typed as UK wall-clock time (the form reads it in TIME_ZONE, UTC).
            cleaned["landing_at"] = cleaned["landing_at"].replace(tzinfo=local_zone())
        return cleaned


def flight_report_from_form(booking: Booking, form: FlightArrivalForm) -> FlightReport:
    landing = form.cleaned_data.get("landing_at")
    landed = form.cleaned_data["status"] == FlightStatus.LANDED
    return FlightReport(
        flight_number=booking.flight_number,
        status=form.cleaned_data["status"],
        estimated_arrival=None if landed else landing,
        actual_arrival=landing if landed else None,
        terminal=form.cleaned_data.get("terminal", ""),
    )


# Bookings' admin with dispatch's flight check: registered again (Django's way to extend
# another app's admin), so bookings imports nothing of dispatch.
admin.site.unregister(Booking)


@admin.register(Booking)
class BookingAdmin(BookingRecordAdmin):
    actions = [
        "status_change",
        "flight_arrival_record",
        "export_statutory_record",
        "block_passenger",
    ]

    @admin.action(description="Record the flight's arrival…", permissions=["change"])
    def flight_arrival_record(self, request, queryset):
        """The back office's door to ``flight_update_apply`` (the pickup follows the
        flight; driver and passenger are told)."""
        bookings = list(queryset.order_by("pk"))
        form = FlightArrivalForm(request.POST if "apply" in request.POST else None)
        if form.is_valid():
            actor = f"admin:{request.user.get_username()}"
            for booking in bookings:
                try:
                    update = flight_update_apply(
                        booking=booking, report=flight_report_from_form(booking, form), actor=actor
                    )
                except DomainError as error:
                    self.message_user(
                        request, f"{booking.reference}: {error.detail}", messages.ERROR
                    )
                    continue
                when = local_time_format(update.booking.pickup_time, "short")
                self.message_user(request, f"{booking.reference}: pickup {when}.", messages.SUCCESS)
            return None
        return TemplateResponse(
            request,
            "bookings/admin/flight_arrival.html",
            {
                **self.admin_site.each_context(request),
                "title": "Record the flight's arrival",
                "opts": self.model._meta,
                "bookings": bookings,
                "form": form,
                "action_checkbox_name": ACTION_CHECKBOX_NAME,
            },
        )
