from django.contrib import admin

from guards.models import ScreeningRejection


@admin.register(ScreeningRejection)
class ScreeningRejectionAdmin(admin.ModelAdmin):
    list_display = ("created_at", "caller", "path", "field", "rule")
    list_filter = ("rule", "field")
    search_fields = ("caller", "excerpt")
    readonly_fields = [f.name for f in ScreeningRejection._meta.fields]
