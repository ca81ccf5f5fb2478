from django import forms
from django.contrib import admin, messages
from django.core.exceptions import ValidationError
from django.utils.html import format_html
from rest_framework_api_key.admin import APIKeyModelAdmin

from core.admin_actions import ActionPermissionsMixin, BackOfficeAdmin
from partners.intake_formats.tomp.operations import tomp_support_answer
from partners.models import (
    Account,
    AccountKey,
    DriverLocationFeed,
    IntakeFormat,
    OperatorUser,
    SupportRequest,
    WebhookAttempt,
    WebhookDelivery,
    signing_secret_is_legacy,
    webhook_secret_for_receivers,
)
from partners.services.accounts import (
    account_created,
    account_key_issue,
    account_keys_revoke,
    account_signing_secret_rotate,
    account_signing_secret_rotation_finish,
    account_webhook_enable,
)
from partners.services.webhooks import webhook_delivery_redeliver, webhook_url_refusal


class AccountKeyInline(admin.TabularInline):
    model = AccountKey
    fields = ("name", "prefix", "created", "expiry_date", "revoked")
    readonly_fields = ("prefix", "created")
    extra = 0
    can_delete = False
    show_change_link = True

    def has_add_permission(self, request, obj=None):
        # New keys are issued with the "Issue a new API key" action, which shows it once.
        return False


class OperatorUserInline(admin.TabularInline):
    model = OperatorUser
    extra = 0
    autocomplete_fields = ("user",)


class AccountAdminForm(forms.ModelForm):
    class Meta:
        model = Account
        fields = "__all__"  # noqa: DJ007 (the back office edits every column)

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        # Most accounts push PartnerJobs: a form that leaves the format out keeps that.
        self.fields["intake_format"].required = False

    def clean_intake_format(self):
        return self.cleaned_data.get("intake_format") or IntakeFormat.PARTNER_JOB

    def clean_webhook_url(self):
        url = self.cleaned_data.get("webhook_url", "")
        if url:
            refusal = webhook_url_refusal(url)
            if refusal:
                raise ValidationError(refusal)
        return url


@admin.register(Account)
class AccountAdmin(BackOfficeAdmin):
    form = AccountAdminForm
    list_display = (
        "name",
        "slug",
        "kind",
        "approved",
        "paused",
        "dispatch_platform",
        "daily_job_limit",
        "subscription__trial_ends_at",
        "webhook_url",
        "webhook_disabled_at",
        "created_at",
    )
    list_filter = ("kind", "approved", "paused", "dispatch_platform")
    search_fields = ("name", "slug", "contact_email")
    prepopulated_fields = {"slug": ("name",)}
    readonly_fields = (
        "signing_secret_shown",
        "previous_signing_secret_shown",
        "previous_signing_secret_expires_at",
        "webhook_disabled_at",
    )
    fieldsets = (
        (
            None,
            {"fields": ("kind", "intake_format", "name", "slug", "contact_email", "created_at")},
        ),
        # The trial lives on the account's subscription (billing), extended there.
        ("Access", {"fields": ("approved", "paused", "can_book", "may_set_fare", "pickup_codes")}),
        ("Limits", {"fields": ("daily_job_limit", "rate_limit")}),
        (
            "Webhooks and signing",
            {
                "fields": (
                    "webhook_url",
                    "webhook_disabled_at",
                    "dispatch_platform",
                    "driver_location_events",
                    "driver_location_until_completed",
                    "signing_secret_shown",
                    "previous_signing_secret_shown",
                    "previous_signing_secret_expires_at",
                ),
            },
        ),
    )
    inlines = [AccountKeyInline]
    actions = [
        "approve",
        "pause",
        "resume",
        "issue_key",
        "revoke_keys",
        "rotate_secret",
        "finish_rotation",
        "enable_webhook",
    ]

    @admin.display(description="Signing secret")
    def signing_secret_shown(self, account: Account) -> str:
        """The secret exactly as a webhook receiver passes it to a Standard Webhooks library
        (contract 5.1). A legacy secret also shows the string it was issued as, which
        still keys inbound x-signature HMACs (contract 1.2)."""
        if account.pk is None:
            # The unsaved form's default is not the secret the saved account will get.
            return "Issued when the account is saved; shown here afterwards."
        return _secret_html(account.signing_secret, element_id="signing-secret")

    @admin.display(description="Previous signing secret (rotating out)")
    def previous_signing_secret_shown(self, account: Account) -> str:
        if not account.previous_signing_secret_live():
            return "-"
        return _secret_html(account.previous_signing_secret, element_id="previous-signing-secret")

    def get_inlines(self, request, obj):
        if obj is not None and obj.kind == Account.Kind.OPERATOR:
            return [AccountKeyInline, OperatorUserInline]
        return [AccountKeyInline]

    def has_issue_key_permission(self, request) -> bool:
        # A key books jobs in the account's name: issuing one is adding an AccountKey.
        return request.user.has_perm("partners.add_accountkey")

    def has_revoke_keys_permission(self, request) -> bool:
        return request.user.has_perm("partners.change_accountkey")

    @admin.action(description="Approve for live intake", permissions=["change"])
    def approve(self, request, queryset):
        queryset.update(approved=True)

    @admin.action(description="Pause the bridge (refuse intake)", permissions=["change"])
    def pause(self, request, queryset):
        queryset.update(paused=True)

    @admin.action(description="Resume the bridge", permissions=["change"])
    def resume(self, request, queryset):
        queryset.update(paused=False)

    def save_model(self, request, obj, form, change):
        super().save_model(request, obj, form, change)
        if not change:
            account_created(account=obj)

    @admin.action(description="Issue a new API key (shown once)", permissions=["issue_key"])
    def issue_key(self, request, queryset):
        for account in queryset:
            _, raw_key = account_key_issue(account=account, name="issued in admin")
            self.message_user(
                request,
                f"{account.slug}: new API key {raw_key} (copy it now; it is not shown again)",
                messages.WARNING,
            )

    @admin.action(description="Revoke every API key", permissions=["revoke_keys"])
    def revoke_keys(self, request, queryset):
        for account in queryset:
            count = account_keys_revoke(account=account)
            self.message_user(request, f"{account.slug}: {count} key(s) revoked.")

    @admin.action(
        description="Rotate the signing secret (the old one stays valid meanwhile)",
        permissions=["change"],
    )
    def rotate_secret(self, request, queryset):
        for account in queryset:
            secret = account_signing_secret_rotate(account=account)
            until = account.previous_signing_secret_expires_at
            self.message_user(
                request,
                f"{account.slug}: new signing secret {webhook_secret_for_receivers(secret)}; "
                f"the previous one stays valid until {until:%Y-%m-%d %H:%M} UTC.",
                messages.WARNING,
            )

    @admin.action(
        description="Finish the secret rotation (drop the previous secret)",
        permissions=["change"],
    )
    def finish_rotation(self, request, queryset):
        for account in queryset:
            account_signing_secret_rotation_finish(account=account)

    @admin.action(
        description="Re-enable a webhook endpoint disabled by 410 Gone", permissions=["change"]
    )
    def enable_webhook(self, request, queryset):
        for account in queryset:
            account_webhook_enable(account=account)


def _secret_html(secret: str, *, element_id: str) -> str:
    shown = format_html('<code id="{}">{}</code>', element_id, webhook_secret_for_receivers(secret))
    if not signing_secret_is_legacy(secret):
        return shown
    return format_html(
        "{}<br>Legacy secret, issued as <code>{}</code>: webhook receivers use the value "
        "above (it encodes the same key); inbound x-signature HMACs are keyed by the value "
        "as issued. Rotate to issue a standard one.",
        shown,
        secret,
    )


@admin.register(AccountKey)
class AccountKeyAdmin(ActionPermissionsMixin, APIKeyModelAdmin):
    list_display = (*APIKeyModelAdmin.list_display, "account")
    list_filter = (*APIKeyModelAdmin.list_filter, "account__kind")
    search_fields = (*APIKeyModelAdmin.search_fields, "account__name", "account__slug")
    autocomplete_fields = ("account",)


@admin.register(OperatorUser)
class OperatorUserAdmin(BackOfficeAdmin):
    list_display = ("user", "account")
    autocomplete_fields = ("user", "account")
    search_fields = ("user__username", "account__slug")


class WebhookAttemptInline(admin.TabularInline):
    model = WebhookAttempt
    fields = ("attempted_at", "status_code", "latency_ms", "error", "response_excerpt")
    readonly_fields = fields
    extra = 0
    can_delete = False

    def has_add_permission(self, request, obj=None):
        return False


@admin.register(WebhookDelivery)
class WebhookDeliveryAdmin(BackOfficeAdmin):
    # Issue 16: status and event type first, so they are on screen without scrolling; the
    # long webhook id is on the detail page and searchable.
    list_display = (
        "status",
        "event_type",
        "booking_reference",
        "account_slug",
        "tries",
        "last_http",
        "created_at",
    )
    list_display_links = ("status", "event_type")
    list_filter = ("status", "event_type", "account__kind", "account")
    search_fields = (
        "webhook_id",
        "event_type",
        "booking__reference",
        "booking__job_ref",
        "account__slug",
    )
    date_hierarchy = "created_at"
    readonly_fields = (
        "account",
        "booking",
        "event",
        "offer",
        "tariff_publication",
        "webhook_id",
        "event_type",
        "sequence",
        "body",
        "url",
        "status",
        "attempt_count",
        "next_attempt_at",
        "last_status_code",
        "last_error",
        "delivered_at",
        "created_at",
    )
    inlines = [WebhookAttemptInline]
    actions = ["redeliver"]
    list_select_related = ("account", "booking")

    def has_add_permission(self, request):
        return False

    @admin.display(description="booking", ordering="booking__reference")
    def booking_reference(self, delivery: WebhookDelivery) -> str:
        return delivery.booking.reference

    @admin.display(description="account", ordering="account__slug")
    def account_slug(self, delivery: WebhookDelivery) -> str:
        return delivery.account.slug

    @admin.display(description="tries", ordering="attempt_count")
    def tries(self, delivery: WebhookDelivery) -> int:
        return delivery.attempt_count

    @admin.display(description="HTTP", ordering="last_status_code")
    def last_http(self, delivery: WebhookDelivery) -> int | None:
        return delivery.last_status_code

    @admin.action(description="Redeliver now (same webhook-id and body)", permissions=["change"])
    def redeliver(self, request, queryset):
        count = 0
        for delivery in queryset.select_related("account"):
            webhook_delivery_redeliver(delivery=delivery)
            count += 1
        self.message_user(request, f"{count} delivery(ies) queued again.")


@admin.register(DriverLocationFeed)
class DriverLocationFeedAdmin(BackOfficeAdmin):
    """Where each live trip's booking.driver_location events stand (read-only)."""

    list_display = (
        "booking",
        "account",
        "sent_at",
        "delivered_position_at",
        "events_sent",
        "failures",
        "last_status_code",
    )
    list_filter = ("account",)
    search_fields = ("booking__reference",)
    list_select_related = ("booking", "account")

    def has_add_permission(self, request) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False


@admin.register(SupportRequest)
class SupportRequestAdmin(BackOfficeAdmin):
    """Requests for support from MaaS providers (TOMP ``POST /support``): staff set the
    status and a reply for the end user, which the provider reads on its next
    ``GET /support/{id}/status``."""

    list_display = ("pk", "booking", "account", "support_type", "priority", "status", "created_at")
    list_filter = ("status", "support_type", "priority")
    search_fields = ("booking__reference", "account__slug", "comment")
    list_select_related = ("booking", "account")
    fields = (
        "booking",
        "account",
        "support_type",
        "priority",
        "comment",
        "request",
        "created_at",
        "status",
        "reply",
        "order",
        "updated_at",
    )
    readonly_fields = tuple(f for f in fields if f not in ("status", "reply"))

    def has_add_permission(self, request) -> bool:
        return False  # raised by providers only

    def save_model(self, request, obj, form, change) -> None:
        stored = SupportRequest.objects.get(pk=obj.pk)
        tomp_support_answer(support=stored, status=obj.status, reply=obj.reply)
