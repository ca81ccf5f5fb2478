"""Back office for the shared dispatch table.

The back office goes through the services: a booking's status is read-only here and
changes only by the "Change status" action, which offers the legal next steps of the
transition table and calls ``booking_status_change`` (event, sequence bump, webhooks,
dispatch release). Bookings are never deleted: they are the statutory booking record.
The "Record the flight's arrival" action is dispatch's (``dispatch.admin``), which
registers this admin again with it.
"""

from __future__ import annotations

import csv

from django import forms
from django.contrib import admin, messages
from django.contrib.admin import helpers
from django.http import HttpResponse
from django.template.response import TemplateResponse
from django.utils import timezone

from bookings.models import (
    Booking,
    BookingEvent,
    BookingStatus,
    EmailConfirmation,
    Passenger,
    PaymentRecord,
)
from bookings.passengers import phone_to_e164
from bookings.services import (
    booking_cancel,
    booking_status_change,
    passenger_block,
    passenger_unblock,
)
from bookings.transitions import TRANSITIONS
from core.admin_actions import BackOfficeAdmin
from core.errors import DomainError
from core.spreadsheet import spreadsheet_cell


def statuses_reachable_from_all(statuses) -> list[str]:
    """The statuses every one of ``statuses`` may legally move to, in declaration order."""
    common = set(BookingStatus.values)
    for status in statuses:
        common &= TRANSITIONS.get(status, frozenset())
    return [status for status in BookingStatus.values if status in common]


class BookingStatusChangeForm(forms.Form):
    to_status = forms.ChoiceField(label="New status")
    reason = forms.CharField(
        max_length=500, required=False, widget=forms.TextInput(attrs={"size": 60})
    )

    def __init__(self, *args, targets: list[str], **kwargs) -> None:
        super().__init__(*args, **kwargs)
        labels = dict(BookingStatus.choices)
        self.fields["to_status"].choices = [(status, labels[status]) for status in targets]


class BookingEventInline(admin.TabularInline):
    model = BookingEvent
    extra = 0
    can_delete = False
    fields = ("sequence", "type", "from_status", "to_status", "actor", "created_at", "detail")
    readonly_fields = fields
    ordering = ("sequence",)

    def has_add_permission(self, request, obj=None):
        return False


class PaymentRecordInline(admin.TabularInline):
    model = PaymentRecord
    extra = 0
    can_delete = False
    fields = ("occurred_at", "kind", "amount", "method", "reference", "processor_fee", "driver")
    readonly_fields = fields

    def has_add_permission(self, request, obj=None):
        return False


# The booking record a UK private hire operator must keep (Local Government (Miscellaneous
# Provisions) Act 1976 s56 and licensing conditions): who, when booked, when and where
# from and to, the fare quoted, the driver and licence, the vehicle, any subcontractor.
STATUTORY_COLUMNS = [
    ("Reference", lambda b: b.reference),
    ("Passenger name", lambda b: b.passenger_name),
    ("Passenger phone", lambda b: b.passenger_phone),
    ("Time booked (UTC)", lambda b: b.created_at.isoformat()),
    ("Pickup time (UTC)", lambda b: b.pickup_time.isoformat()),
    ("Pickup", lambda b: b.pickup),
    ("Destination", lambda b: b.dropoff),
    ("Fare quoted (GBP)", lambda b: f"{b.fare}"),
    ("Driver", lambda b: b.driver.name if b.driver else ""),
    ("Driver licence", lambda b: b.driver.licence_number if b.driver else ""),
    ("Licensing authority", lambda b: b.driver.licensing_authority if b.driver else ""),
    ("Vehicle registration", lambda b: b.vehicle.registration if b.vehicle else ""),
    ("Subcontracted to", lambda b: b.subcontracted_to.name if b.subcontracted_to else ""),
    ("Source", lambda b: b.source),
    ("Status", lambda b: b.status),
]


def place_summary(place: dict) -> str:
    """A resolved place as the back office reads it (contract 2.1 pickupPlace)."""
    if not place:
        return "-"
    return (
        f"{place['label']} ({place['precision']}, {place['source']}) "
        f"at {place['lat']:.5f}, {place['lng']:.5f}"
    )


JOURNEY_FIELDS = (
    "pickup",
    "dropoff",
    "pickup_lat",
    "pickup_lng",
    "dropoff_lat",
    "dropoff_lng",
    "pickup_place",
    "dropoff_place",
    "pickup_time",
    "passengers",
    "vehicle_type",
    "meet_and_greet",
    "currency",
    "distance_miles",
    "duration_minutes",
    "distance_source",
    "final_fare",
    "final_fare_lines",
)


@admin.register(Booking)
class BookingAdmin(BackOfficeAdmin):
    list_display = (
        "reference",
        "status",
        "source",
        "pickup_time",
        "pickup",
        "dropoff",
        "fare",
        "passenger_name",
        "driver",
        "created_at",
    )
    list_filter = (
        "status",
        "source",
        "dispatch_queue",
        "vehicle_type",
        ("pickup_time", admin.DateFieldListFilter),
        ("created_at", admin.DateFieldListFilter),
    )
    # A phone is searched as typed and in E.164 ("07700 900123" finds +447700900123); the
    # addresses as the passenger typed them.
    search_fields = (
        "reference",
        "passenger_email",
        "passenger_phone",
        "passenger_name",
        "job_ref",
        "pickup",
        "dropoff",
    )
    date_hierarchy = "pickup_time"
    list_select_related = ("driver",)
    raw_id_fields = ("quote", "passenger", "driver", "vehicle", "account", "subcontracted_to")
    readonly_fields = (
        "reference",
        "pickup_code",
        "status",
        "sequence",
        "quote",
        "fare",
        "applied_rules",
        "tariff_source",
        "pickup_resolved",
        "dropoff_resolved",
        "created_at",
        "updated_at",
        # The journey, its time and its fare are the booking engine's (issue 40): changed
        # only through the actions and services that apply its rules, never typed over.
        *JOURNEY_FIELDS,
    )
    # tariffSource is shown whole (read-only above); its two stored columns are not fields.
    exclude = ("tariff_source_own", "tariff_snapshot")
    inlines = [BookingEventInline, PaymentRecordInline]

    def get_search_results(self, request, queryset, search_term):
        found, may_have_duplicates = super().get_search_results(request, queryset, search_term)
        e164 = phone_to_e164(search_term.strip()) if search_term.strip() else None
        if e164:
            found |= queryset.filter(passenger_phone=e164)
        return found, may_have_duplicates

    @admin.display(description="Pickup resolved to")
    def pickup_resolved(self, booking) -> str:
        return place_summary(booking.pickup_place)

    @admin.display(description="Dropoff resolved to")
    def dropoff_resolved(self, booking) -> str:
        return place_summary(booking.dropoff_place)

    # dispatch.admin adds "flight_arrival_record" (dispatch's flight check) after the first.
    actions = ["status_change", "export_statutory_record", "block_passenger"]

    def has_delete_permission(self, request, obj=None) -> bool:
        return False  # the statutory booking record (LG(MP)A 1976 s56): cancel instead

    @admin.action(description="Change status…", permissions=["change"])
    def status_change(self, request, queryset):
        bookings = list(queryset.order_by("pk"))
        targets = statuses_reachable_from_all({b.status for b in bookings})
        if not targets:
            self.message_user(
                request,
                "No status change is allowed from every selected booking's status.",
                messages.WARNING,
            )
            return None
        if "apply" in request.POST:
            form = BookingStatusChangeForm(request.POST, targets=targets)
            if form.is_valid():
                self._status_change_apply(request, bookings, **form.cleaned_data)
                return None
        else:
            form = BookingStatusChangeForm(targets=targets)
        return TemplateResponse(
            request,
            "bookings/admin/status_change.html",
            {
                **self.admin_site.each_context(request),
                "title": "Change booking status",
                "opts": self.model._meta,
                "bookings": bookings,
                "form": form,
                "action_checkbox_name": helpers.ACTION_CHECKBOX_NAME,
            },
        )

    def _status_change_apply(self, request, bookings, *, to_status: str, reason: str) -> None:
        actor = f"admin:{request.user.get_username()}"
        changed = 0
        for booking in bookings:
            try:
                if to_status == BookingStatus.CANCELLED:
                    booking_cancel(booking=booking, actor=actor, reason=reason)
                else:
                    detail = {"reason": reason} if reason else None
                    booking_status_change(
                        booking=booking, to_status=to_status, actor=actor, detail=detail
                    )
                changed += 1
            except DomainError as error:
                self.message_user(request, f"{booking.reference}: {error.detail}", messages.ERROR)
        if changed:
            self.message_user(request, f"{changed} booking(s) now {to_status}.", messages.SUCCESS)

    def has_block_passenger_permission(self, request) -> bool:
        # Blocking changes the passenger record, not the booking.
        return request.user.has_perm("bookings.change_passenger")

    @admin.action(description="Export the statutory booking record (CSV)", permissions=["view"])
    def export_statutory_record(self, request, queryset):
        response = HttpResponse(content_type="text/csv")
        stamp = timezone.now().strftime("%Y%m%d-%H%M")
        response["Content-Disposition"] = f'attachment; filename="booking-record-{stamp}.csv"'
        writer = csv.writer(response)
        writer.writerow([title for title, _ in STATUTORY_COLUMNS])
        for booking in queryset.select_related("driver", "vehicle", "subcontracted_to"):
            writer.writerow([spreadsheet_cell(value(booking)) for _, value in STATUTORY_COLUMNS])
        return response

    @admin.action(
        description="Block the passengers of the selected bookings",
        permissions=["block_passenger"],
    )
    def block_passenger(self, request, queryset):
        emails = {b.passenger_email for b in queryset if b.passenger_email}
        for email in emails:
            passenger_block(email=email, reason=f"blocked by {request.user} from booking admin")
        self.message_user(request, f"Blocked {len(emails)} passenger(s).", messages.SUCCESS)


@admin.register(Passenger)
class PassengerAdmin(BackOfficeAdmin):
    list_display = ("email", "name", "phone", "email_verified_at", "blocked", "created_at")
    list_filter = ("blocked", ("email_verified_at", admin.EmptyFieldListFilter))
    search_fields = ("email", "phone", "name")
    actions = ["block", "unblock"]

    @admin.action(description="Block from booking", permissions=["change"])
    def block(self, request, queryset):
        for passenger in queryset:
            passenger_block(email=passenger.email, reason=f"blocked by {request.user} in admin")

    @admin.action(description="Unblock", permissions=["change"])
    def unblock(self, request, queryset):
        for passenger in queryset:
            passenger_unblock(passenger=passenger)


@admin.register(PaymentRecord)
class PaymentRecordAdmin(BackOfficeAdmin):
    list_display = ("booking", "kind", "amount", "method", "processor_fee", "occurred_at")
    list_filter = ("kind", "method")
    search_fields = ("booking__reference", "reference")
    raw_id_fields = ("booking", "driver")

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


@admin.register(EmailConfirmation)
class EmailConfirmationAdmin(BackOfficeAdmin):
    list_display = ("passenger", "created_at", "used_at")
    search_fields = ("passenger__email",)
    readonly_fields = ("passenger", "token", "booking", "created_at", "used_at")
