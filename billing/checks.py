"""System checks for the payment provider's settings (issue 36)."""

from __future__ import annotations

from django.conf import settings
from django.core.checks import Error, Tags, register


@register(Tags.security, deploy=True)
def stripe_live_keys_need_webhook_signing(app_configs, **kwargs):
    """``check --deploy`` refuses a live Stripe key without the webhook signing secret:
    unsigned events would let anyone mark invoices paid."""
    errors = []
    key = settings.STRIPE_SECRET_KEY
    if key.startswith(("sk_live_", "rk_live_")) and not settings.STRIPE_WEBHOOK_SECRET.startswith(
        "whsec_"
    ):
        errors.append(
            Error(
                "A live Stripe key is set without STRIPE_WEBHOOK_SECRET.",
                hint="Set STRIPE_WEBHOOK_SECRET to the endpoint's signing secret (whsec_...).",
                id="billing.E001",
            )
        )
    if key.startswith(("sk_live_", "rk_live_")) and settings.STRIPE_API_BASE:
        errors.append(
            Error(
                "A live Stripe key is sent to STRIPE_API_BASE instead of Stripe.",
                hint="Unset STRIPE_API_BASE in production.",
                id="billing.E002",
            )
        )
    return errors


@register()
def vat_added_on_top_not_supported(app_configs, **kwargs):
    if settings.VAT_NUMBER and not settings.SUBSCRIPTION_FEE_INCLUDES_VAT:
        return [
            Error(
                "SUBSCRIPTION_FEE_INCLUDES_VAT=False is not supported yet: invoices would "
                "charge the fee without the VAT they show.",
                hint="Set the weekly fee including VAT (SUBSCRIPTION_FEE_INCLUDES_VAT=True).",
                id="billing.E003",
            )
        ]
    return []
