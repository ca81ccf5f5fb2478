"""System checks for the payment provider's and the VAT settings (issue 36)."""

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
    if key.startswith(("sk_live_", "rk_live_")) and (
        settings.STRIPE_API_BASE or settings.STRIPE_API_SHARDS
    ):
        errors.append(
            Error(
                "A live Stripe key is sent to STRIPE_API_BASE or STRIPE_API_SHARDS "
                "instead of Stripe.",
                hint="Unset STRIPE_API_BASE and STRIPE_API_SHARDS in production.",
                id="billing.E002",
            )
        )
    return errors


@register()
def vat_rate_is_a_percentage(app_configs, **kwargs):
    """Invoices add or take out VAT at ``VAT_RATE_PERCENT`` (billing.fees.VatRule): a rate
    outside 0 to 100 would charge drivers nonsense."""
    rate = settings.VAT_RATE_PERCENT
    if settings.VAT_NUMBER and not (0 <= rate < 100):
        return [
            Error(
                f"VAT_RATE_PERCENT={rate} is not a VAT rate.",
                hint="Set the rate in force as a percentage, e.g. 20 for the UK standard rate.",
                id="billing.E004",
            )
        ]
    return []
