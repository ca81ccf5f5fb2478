"""Account services: creating accounts, issuing and revoking keys, trials, secret rotation."""

from __future__ import annotations

from datetime import timedelta

from django.db import transaction
from django.utils import timezone
from django.utils.text import slugify

from partners.models import Account, AccountKey

# Seed section 8.2: partners have a 30-day trial that an administrator can extend.
PARTNER_TRIAL_DAYS = 30


@transaction.atomic
def account_create(
    *,
    kind: str,
    name: str,
    slug: str | None = None,
    approved: bool = False,
    webhook_url: str = "",
    daily_job_limit: int | None = None,
    rate_limit: str = "",
) -> tuple[Account, str]:
    """Create an account with one API key; returns the account and the raw key (shown once).

    Partners start their 30-day trial at creation (seed 8.2).
    """
    account = Account(
        kind=kind,
        name=name,
        slug=slug or slugify(name),
        approved=approved,
        webhook_url=webhook_url,
        rate_limit=rate_limit,
    )
    if daily_job_limit is not None:
        account.daily_job_limit = daily_job_limit
    if kind == Account.Kind.PARTNER:
        account.trial_ends_at = timezone.now() + timedelta(days=PARTNER_TRIAL_DAYS)
    account.full_clean()
    account.save()
    _, raw_key = account_key_issue(account=account, name="default")
    return account, raw_key


def account_key_issue(*, account: Account, name: str) -> tuple[AccountKey, str]:
    """Issue a new API key; the raw key is returned once and only its hash is stored."""
    return AccountKey.objects.create_key(account=account, name=name[:50])


def account_keys_revoke(*, account: Account) -> int:
    """Revoke every live key of the account (revocation cannot be undone); returns how many."""
    return AccountKey.objects.filter(account=account, revoked=False).update(revoked=True)


def account_trial_extend(*, account: Account, days: int = PARTNER_TRIAL_DAYS) -> Account:
    """Extend the trial by ``days`` from its current end, or from now when it has lapsed."""
    now = timezone.now()
    start = account.trial_ends_at if account.trial_ends_at and account.trial_ends_at > now else now
    account.trial_ends_at = start + timedelta(days=days)
    account.save(update_fields=["trial_ends_at"])
    return account


def account_signing_secret_rotate(*, account: Account) -> str:
    """Start a rotation: new secret signs and verifies, the previous one still verifies
    (inbound HMAC) and co-signs outbound webhooks until the rotation is finished."""
    secret = account.rotate_signing_secret()
    account.save(update_fields=["signing_secret", "previous_signing_secret"])
    return secret


def account_signing_secret_rotation_finish(*, account: Account) -> None:
    """Drop the previous secret once receivers have switched to the new one."""
    account.previous_signing_secret = ""
    account.save(update_fields=["previous_signing_secret"])


def account_webhook_enable(*, account: Account) -> None:
    """Re-enable a webhook endpoint that answered 410 Gone (contract 5.1)."""
    account.webhook_disabled_at = None
    account.save(update_fields=["webhook_disabled_at"])
