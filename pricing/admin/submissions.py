"""Back office for tables sent in by the trade: reviewed beside their photo, checked by one
staff member and approved by another (pricing.submissions)."""

from __future__ import annotations

from django import forms
from django.conf import settings
from django.contrib import admin, messages
from django.contrib.admin import helpers
from django.core.exceptions import PermissionDenied
from django.http import FileResponse, Http404, HttpResponse
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils.html import format_html, format_html_join

from core.admin_actions import BackOfficeAdmin
from core.errors import DomainError
from pricing.models import (
    TariffSubmission,
)
from pricing.submissions.examples import submission_examples
from pricing.submissions.review import submission_approve, submission_check, submission_reject
from pricing.submissions.sending import STORAGE_DOWN


def _window_words(window: dict) -> str:
    if window["type"] != "weekly":
        return "public holidays"
    days = "every day" if len(window["days"]) == 7 else ", ".join(window["days"])
    if window["start"] == window["end"]:
        return f"{days}, all day"
    return f"{days} {window['start']}-{window['end']}"


class SubmissionRejectForm(forms.Form):
    reason = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 3}),
        max_length=2000,
        help_text="Shown to the driver or operator who sent it.",
    )


@admin.register(TariffSubmission)
class TariffSubmissionAdmin(BackOfficeAdmin):
    """Tables from the trade: pending, checked, approved, rejected. Read-only: the review
    is the three actions, each behind its own permission (a staff member who may only
    view sees none of them), the rules in ``pricing.submissions``."""

    list_display = (
        "id",
        "authority",
        "effective_from",
        "submitter",
        "status",
        "created_at",
        "checked_by",
        "decided_by",
        "tariff",
    )
    list_filter = ("status", "submitter_kind", "authority")
    search_fields = ("authority", "submitter_name")
    date_hierarchy = "created_at"
    list_select_related = ("checked_by", "decided_by", "tariff")
    actions = ["check_submissions", "approve_submissions", "reject_submissions"]
    fieldsets = (
        (None, {"fields": ("status", "authority", "effective_from", "submitter", "created_at")}),
        ("The table beside its photo", {"fields": ("photo_preview", "bands", "extras")}),
        ("The card's own examples, recomputed with the meter", {"fields": ("examples_checked",)}),
        (
            "Review",
            {
                "fields": (
                    "checked_by",
                    "checked_at",
                    "decided_by",
                    "decided_at",
                    "rejection_reason",
                    "tariff",
                )
            },
        ),
    )
    readonly_fields = (
        "status",
        "authority",
        "effective_from",
        "submitter",
        "created_at",
        "photo_preview",
        "bands",
        "extras",
        "examples_checked",
        "checked_by",
        "checked_at",
        "decided_by",
        "decided_at",
        "rejection_reason",
        "tariff",
    )

    def has_add_permission(self, request) -> bool:
        return False  # sent by drivers and operators only

    def has_delete_permission(self, request, obj=None) -> bool:
        return False  # the record of who sent, checked and approved a live table

    def has_check_permission(self, request) -> bool:
        return request.user.has_perm("pricing.check_tariffsubmission")

    def has_approve_permission(self, request) -> bool:
        return request.user.has_perm("pricing.approve_tariffsubmission")

    def has_reject_permission(self, request) -> bool:
        return request.user.has_perm("pricing.reject_tariffsubmission")

    @admin.display(description="Sent by")
    def submitter(self, submission: TariffSubmission) -> str:
        return f"{submission.get_submitter_kind_display()}: {submission.submitter_name}"

    def get_urls(self):
        photo = path(
            "<int:submission_id>/photo/",
            self.admin_site.admin_view(self.photo_view),
            name="pricing_tariffsubmission_photo",
        )
        return [photo, *super().get_urls()]

    def photo_view(self, request, submission_id: int):
        """The photo, to staff who may view submissions only (it is never public): read
        through the storage API, so local files and S3 alike."""
        if not self.has_view_permission(request):
            raise PermissionDenied
        submission = TariffSubmission.objects.filter(pk=submission_id).first()
        if submission is None:
            raise Http404
        try:
            photo = submission.photo.open("rb")
        except STORAGE_DOWN:
            down = HttpResponse("The file store did not answer; try again.", status=503)
            down["Retry-After"] = str(settings.SERVICE_UNAVAILABLE_RETRY_AFTER_SECONDS)
            return down
        response = FileResponse(photo, content_type=submission.photo_type)
        response["Content-Disposition"] = "inline"
        response["X-Content-Type-Options"] = "nosniff"
        response["Content-Security-Policy"] = "sandbox"  # a PDF runs nothing here
        return response

    @admin.display(description="Photo")
    def photo_preview(self, submission: TariffSubmission) -> str:
        url = reverse("admin:pricing_tariffsubmission_photo", args=[submission.pk])
        if submission.photo_type == "application/pdf":
            return format_html('<a href="{}" target="_blank" rel="noopener">Open the PDF</a>', url)
        return format_html(
            '<a href="{}" target="_blank" rel="noopener"><img src="{}" alt="The table as '
            'photographed" style="max-width:100%;max-height:32rem"></a>',
            url,
            url,
        )

    @admin.display(description="Tariffs")
    def bands(self, submission: TariffSubmission) -> str:
        unit = submission.figures.get("distance_unit", "m")
        rows = []
        for band in submission.figures.get("bands", []):
            hours = "; ".join(_window_words(w) for w in band.get("windows", []))
            if band.get("applies_after_distance_m"):
                hours = f"beyond {band['applies_after_distance_m']} m"
            rows.append(
                (
                    band["name"],
                    hours,
                    band.get("flag_fall_gbp", "-"),
                    band.get("flag_fall_distance_m", "-"),
                    band.get("increment_price_gbp"),
                    band.get("increment_distance_m"),
                    band.get("waiting_seconds_per_increment"),
                )
            )
        note = " (entered in yards, shown in metres at 0.9144 m)" if unit == "yd" else ""
        return format_html(
            "<table><tr><th>Tariff</th><th>When</th><th>Flag fall £</th><th>covers m</th>"
            "<th>Then £</th><th>per m</th><th>or per s waiting</th></tr>{}</table><p>{}</p>",
            format_html_join("", "<tr>" + "<td>{}</td>" * 7 + "</tr>", rows),
            note,
        )

    @admin.display(description="Extras")
    def extras(self, submission: TariffSubmission) -> str:
        extras = submission.figures.get("extras", [])
        if not extras:
            return "-"
        return format_html_join(
            "",
            "<div>{}: £{} {}</div>",
            ((e["name"], e.get("amount_gbp"), e.get("window", "")) for e in extras),
        )

    @admin.display(description="Printed and recomputed")
    def examples_checked(self, submission: TariffSubmission) -> str:
        checks = submission_examples(submission)
        if not checks:
            return "The submitter entered no example fares."
        rows = (
            (
                c.miles,
                c.band,
                c.printed,
                c.meter if c.meter is not None else "-",
                "agrees"
                if c.difference == 0
                else (c.difference if c.difference is not None else c.note),
            )
            for c in checks
        )
        return format_html(
            "<table><tr><th>Miles</th><th>Tariff</th><th>Card prints £</th><th>Meter gives £</th>"
            "<th>Difference £</th></tr>{}</table>",
            format_html_join("", "<tr>" + "<td>{}</td>" * 5 + "</tr>", rows),
        )

    def _each(self, request, queryset, act, done: str) -> None:
        for submission in queryset.order_by("pk"):
            try:
                act(submission)
            except DomainError as refused:
                self.message_user(request, f"#{submission.pk}: {refused.detail}", messages.ERROR)
            else:
                self.message_user(request, f"#{submission.pk} {submission.authority}: {done}.")

    @admin.action(description="Check: the figures match the photo", permissions=["check"])
    def check_submissions(self, request, queryset):
        self._each(
            request,
            queryset,
            lambda s: submission_check(submission_id=s.pk, by=request.user),
            "checked; a second staff member approves it",
        )

    @admin.action(description="Approve: put the checked table live", permissions=["approve"])
    def approve_submissions(self, request, queryset):
        self._each(
            request,
            queryset,
            lambda s: submission_approve(submission_id=s.pk, by=request.user),
            "approved: a new table, published to connected platforms",
        )

    @admin.action(description="Reject, saying why…", permissions=["reject"])
    def reject_submissions(self, request, queryset):
        submissions = list(queryset.order_by("pk"))
        form = SubmissionRejectForm(request.POST if "apply" in request.POST else None)
        if form.is_bound and form.is_valid():
            reason = form.cleaned_data["reason"]
            self._each(
                request,
                queryset,
                lambda s: submission_reject(submission_id=s.pk, by=request.user, reason=reason),
                "rejected; the sender sees why",
            )
            return None
        return TemplateResponse(
            request,
            "pricing/admin/submission_reject.html",
            {
                **self.admin_site.each_context(request),
                "title": "Reject tables sent in by the trade",
                "opts": self.model._meta,
                "submissions": submissions,
                "form": form,
                "action_checkbox_name": helpers.ACTION_CHECKBOX_NAME,
            },
        )
