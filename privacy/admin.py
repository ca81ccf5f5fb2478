"""Personal data in the back office: holds (placed and released by staff with the
permission), data requests with their one-month deadline, and the record of staff views,
which no one can add to, edit or delete (the retention job ends it)."""

from __future__ import annotations

from django.contrib import admin, messages
from django.utils import timezone

from core.admin_actions import BackOfficeAdmin
from privacy.models import DataRequest, Hold, StaffView
from privacy.schedule import request_deadline


@admin.register(Hold)
class HoldAdmin(BackOfficeAdmin):
    list_display = ("booking", "reason", "note", "placed_by", "placed_at", "released_at")
    list_filter = ("reason", ("released_at", admin.EmptyFieldListFilter))
    search_fields = ("booking__reference", "note")
    raw_id_fields = ("booking",)
    readonly_fields = ("placed_by", "placed_at", "released_at")
    actions = ["release"]

    def save_model(self, request, obj, form, change):
        if not change:
            obj.placed_by = request.user
        super().save_model(request, obj, form, change)

    @admin.action(description="Release the selected holds", permissions=["change"])
    def release(self, request, queryset):
        released = queryset.filter(released_at__isnull=True).update(released_at=timezone.now())
        self.message_user(request, f"Released {released} hold(s).", messages.SUCCESS)


@admin.register(DataRequest)
class DataRequestAdmin(BackOfficeAdmin):
    list_display = (
        "__str__",
        "subject",
        "kind",
        "created_at",
        "confirmed_at",
        "deadline",
        "completed_at",
    )
    list_filter = ("kind", "subject", ("completed_at", admin.EmptyFieldListFilter))
    search_fields = ("email",)
    readonly_fields = (
        "kind",
        "subject",
        "email",
        "driver",
        "created_at",
        "confirmed_at",
        "completed_at",
        "outcome",
    )
    exclude = ("token_hash",)
    actions = ["mark_answered"]

    @admin.display(description="Answer by")
    def deadline(self, obj: DataRequest):
        return request_deadline(obj.confirmed_at or obj.created_at)

    def has_add_permission(self, request):
        return False

    @admin.action(description="Mark the selected requests answered", permissions=["change"])
    def mark_answered(self, request, queryset):
        done = queryset.filter(completed_at__isnull=True).update(completed_at=timezone.now())
        self.message_user(request, f"{done} request(s) marked answered.", messages.SUCCESS)


@admin.register(StaffView)
class StaffViewAdmin(BackOfficeAdmin):
    """Read-only for whoever holds privacy.view_staffview; nobody adds, edits or deletes."""

    list_display = ("at", "username", "model", "object_id", "search")
    list_filter = ("model",)
    search_fields = ("username", "object_id", "search")
    date_hierarchy = "at"

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False
