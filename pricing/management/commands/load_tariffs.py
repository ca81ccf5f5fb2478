"""Load the council tariff data (contract 9). Production runs it; it creates no accounts
and no users. Safe to run again: tariffs already loaded are left as they are."""

from __future__ import annotations

from django.core.management.base import BaseCommand

from pricing.loaders import tariffs_load


class Command(BaseCommand):
    help = "Load the council tariffs, the network rate and the worldwide rate (idempotent)."

    def handle(self, *args, **options):
        count = tariffs_load(stdout=self.stdout)
        self.stdout.write(self.style.SUCCESS(f"{count} tariffs loaded."))
