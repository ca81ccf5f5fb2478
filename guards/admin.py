from django.contrib import admin

from core.admin_actions import BackOfficeAdmin
from guards.models import ScreeningRejection


@admin.register(ScreeningRejection)
class ScreeningRejectionAdmin(BackOfficeAdmin):
    list_display = ("created_at", "caller", "path", "field", "rule")
    list_filter = ("rule", "field")
    search_fields = ("caller", "excerpt")
    readonly_fields = [f.name for f in ScreeningRejection._meta.fields]
