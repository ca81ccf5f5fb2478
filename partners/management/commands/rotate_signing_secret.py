import json

from django.core.management.base import BaseCommand, CommandError

from partners.models import Account, webhook_secret_for_receivers
from partners.services.accounts import account_signing_secret_rotate


class Command(BaseCommand):
    help = (
        "Rotate an account's signing secret: the new one (Standard Webhooks format) is "
        "printed once; the old one stays live for WEBHOOK_SECRET_ROTATION_HOURS."
    )

    def add_arguments(self, parser):
        parser.add_argument("--slug", required=True)

    def handle(self, *args, **options):
        account = Account.objects.filter(slug=options["slug"]).first()
        if account is None:
            raise CommandError(f"No account with slug {options['slug']!r}.")
        secret = account_signing_secret_rotate(account=account)
        expires = account.previous_signing_secret_expires_at
        self.stdout.write(
            json.dumps(
                {
                    "slug": account.slug,
                    "signingSecret": webhook_secret_for_receivers(secret),
                    "previousSecretLiveUntil": expires.isoformat().replace("+00:00", "Z"),
                }
            )
        )
