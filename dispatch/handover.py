"""Handing committed bookings to dispatch: a Celery task, published off the request path.

Publishing one task message per booking was about a tenth of an instant booking's CPU,
and the request waited for the broker. With ``DISPATCH_HANDOVER_WINDOW_MS`` above 0, a
web process queues the ids of its committed bookings and one background thread publishes
them, gathering those that arrive within the window into one message
(``bookings_dispatch_start``): under load one publish carries several bookings, and a
request never waits for the broker. With 0 (tests, one-off commands), each booking is
published at once, on the caller's thread.

An id queued in a process that is killed before the thread publishes it is not lost for
good: ``bookings_dispatch_overdue`` (periodic) hands over any network booking that never
reached dispatch, which also covers a broker that was down when the booking committed.
On a normal exit the queue is published first (atexit).
"""

from __future__ import annotations

import atexit
import logging
import os
import queue
import threading
import time
from collections.abc import Callable

from django.conf import settings

logger = logging.getLogger(__name__)

MAX_IDS_PER_MESSAGE = 100


def dispatch_publish(booking_ids: list[int]) -> None:
    """One task message for these bookings."""
    from dispatch import tasks

    if len(booking_ids) == 1:
        tasks.booking_dispatch_start.delay(booking_ids[0])
    else:
        tasks.bookings_dispatch_start.delay(booking_ids)


class Handover:
    """Queues booking ids and publishes them from one thread per process, in batches."""

    def __init__(self, publish: Callable[[list[int]], None], *, window_seconds: float) -> None:
        self.publish = publish
        self.window_seconds = window_seconds
        self._queue: queue.SimpleQueue[int] = queue.SimpleQueue()
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self._pid: int | None = None

    def submit(self, booking_id: int) -> None:
        """Hand over one committed booking: queued for the thread, or published at once."""
        if self.window_seconds <= 0:
            self.publish_now([booking_id])
            return
        self._thread_ensure()
        self._queue.put(booking_id)

    def publish_now(self, booking_ids: list[int]) -> None:
        """Publish on the caller's thread (a partner batch is one message already). A
        broker failure is logged, not raised: the bookings are committed, and the sweep
        hands them over later."""
        for start in range(0, len(booking_ids), MAX_IDS_PER_MESSAGE):
            chunk = booking_ids[start : start + MAX_IDS_PER_MESSAGE]
            try:
                self.publish(chunk)
            except Exception:
                logger.exception(
                    "dispatch handover of bookings %s failed; the sweep retries", chunk
                )

    def flush(self) -> None:
        """Publish whatever is queued now, on the caller's thread."""
        while ids := self._take(block=False):
            self.publish_now(ids)

    def _thread_ensure(self) -> None:
        # A forked child (a gunicorn or Celery worker) inherits no running thread.
        if self._pid == os.getpid() and self._thread is not None:
            return
        with self._lock:
            if self._pid != os.getpid() or self._thread is None:
                self._queue = queue.SimpleQueue()
                self._thread = threading.Thread(
                    target=self._run, name="dispatch-handover", daemon=True
                )
                self._pid = os.getpid()
                self._thread.start()

    def _run(self) -> None:
        while True:
            ids = self._take(block=True)
            if ids:
                self.publish_now(ids)

    def _take(self, *, block: bool) -> list[int]:
        """The next batch: the first id (waited for when ``block``), then whatever else
        arrives within the window, up to one message's worth."""
        try:
            ids = [self._queue.get(block=block)]
        except queue.Empty:
            return []
        deadline = time.monotonic() + (self.window_seconds if block else 0)
        while len(ids) < MAX_IDS_PER_MESSAGE:
            remaining = deadline - time.monotonic()
            try:
                ids.append(
                    self._queue.get(timeout=remaining)
                    if remaining > 0
                    else self._queue.get_nowait()
                )
            except queue.Empty:
                break
        return ids


_handover: Handover | None = None


def handover_get() -> Handover:
    """This process's handover, configured from settings on first use."""
    global _handover
    if _handover is None:
        window = getattr(settings, "DISPATCH_HANDOVER_WINDOW_MS", 0) / 1000
        _handover = Handover(dispatch_publish, window_seconds=window)
        atexit.register(_handover.flush)
    return _handover
