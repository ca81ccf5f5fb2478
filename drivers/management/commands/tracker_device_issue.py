"""Register a driver's Traccar Client (OsmAnd protocol) and print its server URL once.

    python manage.py tracker_device_issue --driver 42 --device-id 48241179

The device identifier is the one Traccar Client shows in its settings. Running it again
for the same device gives it a new token (the old one stops working).
"""

from __future__ import annotations

import json

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from core.errors import DomainError
from drivers.models import Driver
from drivers.positions.credentials import tracker_device_register


class Command(BaseCommand):
    help = "Register a driver's tracking app (Traccar Client) and print its server URL once."

    def add_arguments(self, parser):
        parser.add_argument("--driver", type=int, required=True, help="the driver's id")
        parser.add_argument("--device-id", required=True, help="Traccar Client's identifier")

    def handle(self, *args, driver: int, device_id: str, **options):
        found = Driver.objects.filter(pk=driver).first()
        if found is None:
            raise CommandError(f"No driver {driver}.")
        try:
            device, token = tracker_device_register(driver=found, device_id=device_id)
        except DomainError as error:
            raise CommandError(error.detail) from None
        url = f"{settings.SITE_URL}/api/public/v1/osmand/{token}"
        self.stdout.write(
            json.dumps({"driver": found.pk, "deviceId": device.device_id, "serverUrl": url})
        )
