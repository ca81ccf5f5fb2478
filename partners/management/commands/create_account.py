import json

from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError

from partners.models import Account, IntakeFormat
from partners.services import account_create


class Command(BaseCommand):
    help = "Create a partner, operator, supplier or agent account and print its API key once."

    def add_arguments(self, parser):
        parser.add_argument("--kind", required=True, choices=Account.Kind.values)
        parser.add_argument("--name", required=True)
        parser.add_argument("--slug")
        parser.add_argument("--approved", action="store_true")
        parser.add_argument("--webhook-url", default="")
        parser.add_argument("--daily-limit", type=int)
        parser.add_argument("--rate-limit", default="", help='e.g. "6000/m"')
        parser.add_argument(
            "--intake-format",
            default=IntakeFormat.PARTNER_JOB,
            choices=IntakeFormat.values,
            help="The payload the account pushes jobs in (partners/intake_formats/).",
        )
        parser.add_argument(
            "--dispatch-platform",
            action="store_true",
            help="A connected dispatch platform: receives tariff.updated events (contract 5.3).",
        )

    def handle(self, *args, **options):
        try:
            account, raw_key = account_create(
                kind=options["kind"],
                name=options["name"],
                slug=options["slug"],
                approved=options["approved"],
                webhook_url=options["webhook_url"],
                daily_job_limit=options["daily_limit"],
                rate_limit=options["rate_limit"],
                dispatch_platform=options["dispatch_platform"],
                intake_format=options["intake_format"],
            )
        except ValidationError as exc:
            raise CommandError(f"Invalid account: {exc.message_dict}") from exc
        self.stdout.write(
            json.dumps(
                {
                    "slug": account.slug,
                    "kind": account.kind,
                    "apiKey": raw_key,
                    "signingSecret": account.signing_secret,
                }
            )
        )
