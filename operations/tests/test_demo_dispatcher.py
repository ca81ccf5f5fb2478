"""The demo drivers' presence is the demo dispatcher's chore, not the production one's
(issue 38): ``run_dispatcher`` runs no demo, ``run_demo_dispatcher`` adds it."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from dispatch.management.commands.run_dispatcher import Command as ProductionDispatcher
from drivers.demo import DEMO_PRESENCE_EVERY_SECONDS, DemoPresence
from drivers.models import Driver
from drivers.tests.factories import DriverFactory
from operations.management.commands.run_demo_dispatcher import Command as DemoDispatcher


def test_only_the_demo_dispatcher_keeps_the_demo_drivers_present():
    assert ProductionDispatcher().chores_also() == ()
    assert [type(chore) for chore in DemoDispatcher().chores_also()] == [DemoPresence]


@pytest.mark.django_db
def test_demo_presence_reports_for_online_demo_drivers_once_a_minute():
    driver = DriverFactory(licence_number="DEMO-0001", online=True)
    presence, start = DemoPresence(), timezone.now()

    presence(now=start)
    presence(now=start + timedelta(seconds=DEMO_PRESENCE_EVERY_SECONDS - 1))
    assert Driver.objects.get(pk=driver.pk).last_seen_at == start
    later = start + timedelta(seconds=DEMO_PRESENCE_EVERY_SECONDS)
    presence(now=later)
    assert Driver.objects.get(pk=driver.pk).last_seen_at == later
