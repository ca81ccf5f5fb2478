"""List the council tables not checked against their publisher for 12 months (issue 21)."""

from __future__ import annotations

from django.core.management.base import BaseCommand

from pricing.staleness import STALE_AFTER_DAYS, tariffs_stale


class Command(BaseCommand):
    help = f"List council tariffs not checked against their source for {STALE_AFTER_DAYS} days."

    def handle(self, *args, **options):
        stale = tariffs_stale()
        for tariff in stale:
            checked = tariff.checked_on.isoformat() if tariff.checked_on else "never"
            source = (tariff.sources or [{}])[0].get("address") or "no source"
            self.stdout.write(
                f"{tariff.reference}\t{tariff.authority}\t{tariff.lifecycle}\t"
                f"checked {checked}\t{source}"
            )
        self.stdout.write(f"{len(stale)} table(s) not checked for {STALE_AFTER_DAYS} days.")
