"""``manage.py run_dispatcher``: the process that hands committed bookings to dispatch."""

from __future__ import annotations

import signal

from django.core.management.base import BaseCommand

from dispatch.relay import CLAIM_BATCH, bookings_dispatch_claim_all, dispatcher_run


class Command(BaseCommand):
    help = (
        "Hand new bookings to the dispatch workers as they commit (LISTEN/NOTIFY on "
        "PostgreSQL, with a polling fallback). Run one or more beside the Celery workers."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "--poll", type=float, default=1.0, help="seconds between polls (default 1)"
        )
        parser.add_argument(
            "--batch", type=int, default=CLAIM_BATCH, help="bookings claimed per transaction"
        )
        parser.add_argument(
            "--once", action="store_true", help="hand over what is waiting now, then exit"
        )

    def handle(self, *args, poll: float, batch: int, once: bool, **options):
        if once:
            claimed = bookings_dispatch_claim_all(limit=batch)
            self.stdout.write(f"handed {claimed} bookings to dispatch")
            return
        stop = []
        # A stop between passes, after the current batch is committed (at most --poll later).
        for signum in (signal.SIGTERM, signal.SIGINT):
            signal.signal(signum, lambda *_: stop.append(True))
        self.stdout.write(f"dispatcher: waiting for bookings (poll every {poll}s)")
        dispatcher_run(poll_seconds=poll, limit=batch, stopping=lambda: bool(stop))
        self.stdout.write("dispatcher: stopped")
