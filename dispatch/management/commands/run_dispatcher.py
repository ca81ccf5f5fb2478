"""``manage.py run_dispatcher``: the process that hands committed bookings to dispatch."""

from __future__ import annotations

import logging
import signal

from django.core.management.base import BaseCommand

from dispatch.periodic import DispatcherChores, periodic_tasks_in_dispatcher
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

    def chores_also(self) -> tuple:
        """Chores run after each pass besides the periodic tasks: none in production
        (``manage.py run_demo_dispatcher`` adds the demo drivers' presence)."""
        return ()

    def handle(self, *args, poll: float, batch: int, once: bool, **options):
        if once:
            claimed = bookings_dispatch_claim_all(limit=batch)
            self.stdout.write(f"handed {claimed} bookings to dispatch")
            return
        stop = []
        # A stop between passes, after the current batch is committed (at most --poll later).
        for signum in (signal.SIGTERM, signal.SIGINT):
            signal.signal(signum, lambda *_: stop.append(True))
        periodic = periodic_tasks_in_dispatcher()
        if periodic:
            # Run in-process, every task's success would be a log line (one every 2 s for
            # the live-trip tick); failures are still logged.
            logging.getLogger("celery.app.trace").setLevel(logging.WARNING)
        also = self.chores_also()
        self.stdout.write(
            f"dispatcher: waiting for bookings (poll every {poll}s)"
            + ("; running the periodic tasks (no beat)" if periodic else "")
            + "".join(f"; {chore.describe}" for chore in also)
        )
        chores = DispatcherChores(periodic=periodic, also=also)
        dispatcher_run(
            poll_seconds=poll, limit=batch, stopping=lambda: bool(stop), after_each_pass=chores
        )
        self.stdout.write("dispatcher: stopped")
