"""Handing committed bookings to dispatch: a Celery task, published off the request path.

Publishing one task message per booking was about a tenth of an instant booking's CPU,
and the request waited for the broker. With ``DISPATCH_HANDOVER_WINDOW_MS`` above 0, a
web process queues the ids of its committed bookings and publishes them in batches: the
first request to finish once the oldest queued id has waited a window publishes them all
in one message (``bookings_dispatch_start``), after its own response has gone
(``request_finished``). Under load one publish carries several bookings, and no request
waits for the broker. With 0 (tests, one-off commands), each booking is published at
once, on the caller's thread.

A background thread covers the ids no later request picks up (a lull in traffic, or a
process that serves no requests): it publishes them ``FALLBACK_WINDOWS`` windows after
they were queued. It does not publish under load: a thread publishing while the request
thread runs made the two hand the GIL back and forth around every socket call, which
cost the web process more CPU than the publishing itself.

An id queued in a process that is killed before it is published is not lost for good:
``bookings_dispatch_overdue`` (periodic) hands over any network booking that never
reached dispatch, which also covers a broker that was down when the booking committed.
On a normal exit the queue is published first (atexit).
"""

from __future__ import annotations

import atexit
import logging
import os
import threading
import time
from collections.abc import Callable

from django.conf import settings

logger = logging.getLogger(__name__)

MAX_IDS_PER_MESSAGE = 100
# The background thread publishes ids that have waited this many windows.
FALLBACK_WINDOWS = 5


def dispatch_publish(booking_ids: list[int]) -> None:
    """One task message for these bookings."""
    from dispatch import tasks

    if len(booking_ids) == 1:
        tasks.booking_dispatch_start.delay(booking_ids[0])
    else:
        # A short argsrepr (shown by monitoring tools) spares Celery a saferepr of up to
        # a hundred ids on every publish.
        tasks.bookings_dispatch_start.apply_async(
            (booking_ids,), argsrepr=f"[{len(booking_ids)} booking ids]"
        )


class Handover:
    """Queues booking ids and publishes them in batches, after responses or from a thread."""

    def __init__(self, publish: Callable[[list[int]], None], *, window_seconds: float) -> None:
        self.publish = publish
        self.window_seconds = window_seconds
        self._lock = threading.Lock()
        self._ids: list[int] = []
        self._oldest = 0.0  # when the oldest queued id was submitted (time.monotonic)
        self._queued = threading.Event()  # set when the queue stops being empty
        self._thread: threading.Thread | None = None
        self._pid: int | None = None

    def submit(self, booking_id: int) -> None:
        """Hand over one committed booking: queued for a batch, or published at once."""
        if self.window_seconds <= 0:
            self.publish_now([booking_id])
            return
        self._thread_ensure()
        with self._lock:
            first = not self._ids
            if first:
                self._oldest = time.monotonic()
            self._ids.append(booking_id)
        if first:
            self._queued.set()

    def publish_due(self) -> None:
        """Publish the queue if its oldest id has waited a window (after each request)."""
        if self._ids and time.monotonic() - self._oldest >= self.window_seconds:
            self.flush()

    def publish_now(self, booking_ids: list[int]) -> None:
        """Publish on the caller's thread, ``MAX_IDS_PER_MESSAGE`` to a message. A broker
        failure is logged, not raised: the bookings are committed, and the sweep hands
        them over later."""
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
        with self._lock:
            ids, self._ids = self._ids, []
        if ids:
            self.publish_now(ids)

    def _thread_ensure(self) -> None:
        # A forked child (a gunicorn or Celery worker) inherits no running thread.
        if self._pid == os.getpid() and self._thread is not None:
            return
        with self._lock:
            if self._pid != os.getpid() or self._thread is None:
                self._ids = []  # a parent's queue is the parent's to publish
                self._queued = threading.Event()
                self._thread = threading.Thread(
                    target=self._run, name="dispatch-handover", daemon=True
                )
                self._pid = os.getpid()
                self._thread.start()

    def _run(self) -> None:
        # Wakes when the queue fills, then sleeps until its oldest id is overdue; ids
        # that requests published meanwhile leave nothing to do but sleep again.
        while True:
            self._queued.wait()
            self._queued.clear()
            while True:
                with self._lock:
                    if not self._ids:
                        break
                    due = self._oldest + self.window_seconds * FALLBACK_WINDOWS
                delay = due - time.monotonic()
                if delay > 0:
                    time.sleep(delay)
                else:
                    self.flush()


_handover: Handover | None = None


def handover_get() -> Handover:
    """This process's handover, configured from settings on first use."""
    global _handover
    if _handover is None:
        window = getattr(settings, "DISPATCH_HANDOVER_WINDOW_MS", 0) / 1000
        _handover = Handover(dispatch_publish, window_seconds=window)
        atexit.register(_handover.flush)
    return _handover


def handover_after_request(**kwargs) -> None:
    """``request_finished``: publish this process's overdue batch, if it has one."""
    if _handover is not None:
        _handover.publish_due()
