"""Each rule has one home: no module keeps its own copy of a setting's default or of
the local time zone."""

from __future__ import annotations

import datetime as dt
import re
from pathlib import Path

import pytest
from django.core import mail

from bookings.models import Passenger
from bookings.services import email_confirmation_send
from bookings.tests.factories import BookingFactory
from core.testing.places import LEEDS
from core.testing.sources import production_modules as project_modules
from dispatch.models import Offer, OfferStatus, Tier
from dispatch.services.job_cards import job_card_body
from drivers.tests.factories import driver_at

ROOT = Path(__file__).resolve().parents[1]

# Files other helpers own at the time of writing; the lead empties this at merge.
NOT_YET: set[str] = set()


def production_modules():
    for relative, text in project_modules():
        if relative not in NOT_YET:
            yield relative, text


def test_settings_are_read_from_settings_with_defaults_in_base():
    scattered = re.compile(r"getattr\(\s*settings\s*,\s*[\"'][A-Z_]+[\"']\s*,")
    assert [name for name, text in production_modules() if scattered.search(text)] == []


def test_the_local_time_zone_is_named_once():
    named = re.compile(r"ZoneInfo\(\s*[\"']Europe/London[\"']\s*\)|timezone \"Europe/London\"")
    offenders = [name for name, text in production_modules() if named.search(text)]
    offenders += [
        path.relative_to(ROOT).as_posix()
        for path in (ROOT / "templates").rglob("*.html")
        if "Europe/London" in path.read_text()
    ]
    assert offenders == []


@pytest.mark.django_db
def test_job_cards_and_emails_show_uk_local_time(django_capture_on_commit_callbacks):
    # given a booking at 21:30 UTC in summer: 22:30 in the UK
    pickup = dt.datetime(2030, 6, 5, 21, 30, tzinfo=dt.UTC)
    booking = BookingFactory(pickup_time=pickup)
    offer = Offer.objects.create(
        booking=booking,
        tier=Tier.LOCAL,
        driver=driver_at(LEEDS),
        status=OfferStatus.OPEN,
        expires_at=dt.datetime(2030, 6, 5, 20, 0, tzinfo=dt.UTC),
    )
    # then the job card (SMS) and the passenger email say 22:30, the answer deadline 21:00
    body = job_card_body(offer=offer)
    assert "Pickup Wed 5 Jun 22:30" in body
    assert "Accept or decline by 21:00" in body
    passenger = Passenger.objects.create(email="jo@example.co.uk")
    with django_capture_on_commit_callbacks(execute=True):
        email_confirmation_send(passenger=passenger, booking=booking)
    assert "Pickup: Wed 5 June 2030, 22:30 (UK time)" in mail.outbox[0].body
