"""``manage.py invoices_generate [--week YYYY-MM-DD]``: invoice one billing week.

Any date in the week selects it (Monday to Sunday, Europe/London); the default is the
last week that has ended. Re-running is safe: drivers already invoiced for the week are
skipped, so this also completes a run that stopped half way.
"""

from __future__ import annotations

import time
from datetime import date

from django.core.management.base import BaseCommand, CommandError

from billing.services.invoicing import CHUNK_SIZE, ChunkProgress, invoices_generate_week
from billing.weeks import week_start_of, week_start_previous

BAR_WIDTH = 30


class Command(BaseCommand):
    help = "Generate the weekly driver invoices for one billing week (idempotent)."

    def add_arguments(self, parser):
        parser.add_argument(
            "--week",
            type=date.fromisoformat,
            default=None,
            help="Any date (YYYY-MM-DD) in the week to invoice; default: last week.",
        )
        parser.add_argument("--chunk-size", type=int, default=CHUNK_SIZE)

    def handle(self, *args, week: date | None, chunk_size: int, **options):
        week_start = week_start_of(week) if week else week_start_previous()
        self.stdout.write(f"Invoicing the week of {week_start} (Monday, Europe/London)")
        started = time.monotonic()

        def report(step: ChunkProgress) -> None:
            filled = BAR_WIDTH * step.drivers_done // max(step.drivers_total, 1)
            self.stdout.write(
                f"[{'#' * filled}{'.' * (BAR_WIDTH - filled)}] chunk {step.chunk}/{step.chunks}"
                f" drivers {step.drivers_done}/{step.drivers_total} created {step.created}"
                f" ({time.monotonic() - started:.1f}s)"
            )
            self.stdout.flush()

        try:
            result = invoices_generate_week(
                week_start=week_start, chunk_size=chunk_size, progress=report
            )
        except ValueError as exc:
            raise CommandError(str(exc)) from exc
        numbers = (
            f", numbers {result.first_number}-{result.last_number}" if result.first_number else ""
        )
        self.stdout.write(
            self.style.SUCCESS(
                f"Done in {time.monotonic() - started:.1f}s: {result.drivers_with_activity} "
                f"drivers with activity, {result.created_billed} invoices "
                f"(£{result.total_billed}){numbers}, {result.created_free} free weeks, "
                f"{result.already_invoiced} already invoiced."
            )
        )
        for driver_id, error in sorted(result.failed.items()):
            self.stdout.write(
                self.style.ERROR(f"Driver {driver_id} not invoiced (recorded for staff): {error}")
            )
