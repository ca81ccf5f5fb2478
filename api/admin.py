from django.contrib import admin

from api.models import IdempotencyRecord
from core.admin_actions import BackOfficeAdmin


@admin.register(IdempotencyRecord)
class IdempotencyRecordAdmin(BackOfficeAdmin):
    list_display = ("method", "path", "state", "response_status", "created_at")
    list_filter = ("state", "method", "response_status")
    search_fields = ("path",)
    readonly_fields = [f.name for f in IdempotencyRecord._meta.fields]
