"""Signal receivers: a partner account starts its trial when it is created (seed 8.2)."""

from __future__ import annotations

from django.db.models.signals import post_save
from django.dispatch import receiver

from partners.models import Account


@receiver(post_save, sender=Account, dispatch_uid="billing.partner_subscription_start")
def partner_subscription_start(
    sender, instance: Account, created: bool, raw: bool = False, **kwargs
) -> None:
    # Only on creation: account saves are not on any hot path, but we still avoid adding
    # a query to every later save. Drivers get theirs lazily (see subscriptions_ensure).
    if not created or raw or instance.kind != Account.Kind.PARTNER:
        return
    from billing.services.subscriptions import subscription_create_for_account

    subscription_create_for_account(account=instance)
