"""Point a local localstripe's webhooks at this service (``make demo`` with
STRIPE_API_BASE on 127.0.0.1/localhost): localstripe then signs and posts its events to
``SITE_URL/billing/stripe/webhook`` with STRIPE_WEBHOOK_SECRET, as Stripe would."""

from __future__ import annotations

import time

import requests
from django.conf import settings
from django.core.management.base import BaseCommand, CommandError
from django.urls import reverse


class Command(BaseCommand):
    help = "Register this service's Stripe webhook with a local localstripe server."

    def handle(self, *args, **options):
        base = settings.STRIPE_API_BASE.rstrip("/")
        if not base or not settings.STRIPE_WEBHOOK_SECRET:
            raise CommandError("Set STRIPE_API_BASE and STRIPE_WEBHOOK_SECRET first.")
        url = settings.SITE_URL.rstrip("/") + reverse("stripe-webhook")
        for _ in range(50):  # localstripe may still be starting
            try:
                response = requests.post(
                    f"{base}/_config/webhooks/demo",
                    data={"url": url, "secret": settings.STRIPE_WEBHOOK_SECRET},
                    timeout=5,
                )
                break
            except requests.ConnectionError:
                time.sleep(0.2)
        else:
            raise CommandError(f"localstripe does not answer at {base}.")
        response.raise_for_status()
        self.stdout.write(f"localstripe at {base} posts its events to {url}")
