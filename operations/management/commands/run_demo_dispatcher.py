"""``manage.py run_demo_dispatcher``: the dispatcher of ``make demo``.

The production dispatcher (``run_dispatcher``) plus one chore: the demo drivers have no
phones, so after each pass their presence is refreshed as their apps would
(``drivers.demo.DemoPresence``). It lives here, with the demo's seed (``seed_demo``), on
the floor above the domain apps, so the production dispatcher imports no demo.
"""

from __future__ import annotations

from dispatch.management.commands.run_dispatcher import Command as DispatcherCommand
from drivers.demo import DemoPresence


class Command(DispatcherCommand):
    help = "The dispatcher of make demo: run_dispatcher, keeping the online demo drivers present."

    def chores_also(self) -> tuple:
        return (DemoPresence(),)
