"""The periodic tasks, run by the dispatcher process when there is no Celery beat.

The embedded default (no ``REDIS_URL``: SQLite, tasks in-process) has no broker, so no
worker and no beat: an offer's countdown task runs at once and finds nothing due, and
the sweeps that beat would run (offer timeouts, dispatch hand-overs, webhook retries,
purges, invoicing) never ran. ``make demo`` already runs the dispatcher beside the web
server, so the dispatcher runs them: each pass it expires the offers whose deadline has
passed (so an unanswered offer moves on within a pass of its deadline, as the countdown
task does under a worker), then every ``CELERY_BEAT_SCHEDULE`` entry that is due, in
this process, through Celery's own schedule objects. Web processes run none of it and
start no thread for it.

``DISPATCHER_RUNS_PERIODIC_TASKS`` switches it on (on by default exactly when tasks run
in-process); with a broker, beat runs them instead.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from datetime import datetime

from celery import current_app
from celery.schedules import maybe_schedule
from django.conf import settings
from django.utils import timezone

from dispatch.services import offers

logger = logging.getLogger(__name__)


class PeriodicTasks:
    """Beat's schedule, run in the calling process: ``run_due()`` once per pass."""

    def __init__(self, *, now: datetime | None = None) -> None:
        # The project's Celery app (config.celery), made current when the settings package
        # loads: dispatch sits below config and does not import it.
        app = self._app = current_app
        # What a worker does at start: import every app's tasks module (autodiscovery).
        app.loader.import_default_modules()
        started = now or timezone.now()
        # As beat does: an entry first runs one interval after start (a crontab entry at
        # its next time), never in a burst when the process starts.
        self._entries = {
            name: (entry["task"], maybe_schedule(entry["schedule"], app=app))
            for name, entry in settings.CELERY_BEAT_SCHEDULE.items()
        }
        self._last_run = dict.fromkeys(self._entries, started)

    def run_due(self, *, now: datetime | None = None) -> list[str]:
        """Expire overdue offers, then run every entry that is due; the entries run."""
        now = now or timezone.now()
        self._run("offer timeouts", offers.offers_expire_overdue, now=now)
        ran = []
        for name, (task_name, schedule) in self._entries.items():
            if not schedule.is_due(self._last_run[name]).is_due:
                continue
            self._last_run[name] = now
            self._run(name, self._app.tasks[task_name].apply)
            ran.append(name)
        return ran

    def _run(self, name: str, call, **kwargs) -> None:
        # One failing task must not stop the others, nor the dispatcher's hand-over.
        try:
            call(**kwargs)
        except Exception:
            logger.exception("dispatcher: periodic task %s failed", name)


def periodic_tasks_in_dispatcher() -> bool:
    """Whether the dispatcher runs the periodic tasks (no beat in this configuration)."""
    return bool(settings.DISPATCHER_RUNS_PERIODIC_TASKS)


class DispatcherChores:
    """What the dispatcher does after each hand-over pass (``dispatch.relay``): the
    ``also`` chores the command adds (the demo's stand-in for its drivers' phones,
    ``drivers.demo.DemoPresence``, from ``manage.py run_demo_dispatcher``), then the
    periodic tasks when there is no beat. Dispatch itself knows no demo."""

    def __init__(
        self,
        *,
        periodic: bool,
        also: Sequence[Callable[..., object]] = (),
        now: datetime | None = None,
    ) -> None:
        self._periodic = PeriodicTasks(now=now) if periodic else None
        self._also = tuple(also)

    def __call__(self, *, now: datetime | None = None) -> None:
        now = now or timezone.now()
        for chore in self._also:
            chore(now=now)
        if self._periodic is not None:
            self._periodic.run_due(now=now)
