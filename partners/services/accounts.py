"""Account services: creating accounts, issuing and revoking keys, secret rotation."""

from __future__ import annotations

from django.db import transaction
from django.utils.text import slugify

from billing.services.subscriptions import subscription_create_for_account
from partners.models import Account, AccountKey, IntakeFormat


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
    dispatch_platform: bool = False,
    intake_format: str = IntakeFormat.PARTNER_JOB,
) -> tuple[Account, str]:
    """Create an account with one API key; returns the account and the raw key (shown once).

    A partner's subscription starts here, with its free trial (seed 8.2; billing owns
    the trial's length and end).
    """
    account = Account(
        kind=kind,
        name=name,
        slug=slug or slugify(name),
        approved=approved,
        webhook_url=webhook_url,
        rate_limit=rate_limit,
        dispatch_platform=dispatch_platform,
        intake_format=intake_format,
    )
    if daily_job_limit is not None:
        account.daily_job_limit = daily_job_limit
    account.full_clean()
    account.save()
    account_created(account=account)
    _, raw_key = account_key_issue(account=account, name="default")
    return account, raw_key


def account_created(*, account: Account) -> None:
    """What follows the creation of an account, by whatever door (this module, the back
    office): a partner's subscription starts, with its free trial (seed 8.2)."""
    if account.kind == Account.Kind.PARTNER:
        subscription_create_for_account(account=account)


def account_key_issue(*, account: Account, name: str) -> tuple[AccountKey, str]:
    """Issue a new API key; the raw key is returned once and only its hash is stored."""
    return AccountKey.objects.create_key(account=account, name=name[:50])


def account_keys_revoke(*, account: Account) -> int:
    """Revoke every live key of the account (revocation cannot be undone); returns how many."""
    return AccountKey.objects.filter(account=account, revoked=False).update(revoked=True)


SECRET_FIELDS = ["signing_secret", "previous_signing_secret", "previous_signing_secret_expires_at"]


def account_signing_secret_rotate(*, account: Account) -> str:
    """Start a rotation: a new Standard Webhooks secret signs and verifies at once; the
    previous one still verifies (inbound HMAC) and co-signs outbound webhooks (several
    ``v1,`` entries) for WEBHOOK_SECRET_ROTATION_HOURS, or until the rotation is finished.
    Rotating a legacy (non-base64) secret is how an account moves to the standard format."""
    secret = account.rotate_signing_secret()
    account.save(update_fields=SECRET_FIELDS)
    return secret


def account_signing_secret_rotation_finish(*, account: Account) -> None:
    """Drop the previous secret once receivers have switched to the new one."""
    account.previous_signing_secret = ""
    account.previous_signing_secret_expires_at = None
    account.save(update_fields=SECRET_FIELDS[1:])


def account_webhook_enable(*, account: Account) -> None:
    """Re-enable a webhook endpoint that answered 410 Gone (contract 5.1)."""
    account.webhook_disabled_at = None
    account.save(update_fields=["webhook_disabled_at"])
