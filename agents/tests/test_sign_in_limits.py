"""The limits on emailing sign-in codes (agents.services.sign_in_code_send): per mailbox
however it is spelt, and never per process while the cache is down (issue 35)."""

from __future__ import annotations

import pytest
from django.core import mail

from agents.services import sign_in_code_send
from core.callers import Caller
from core.errors import LimitReached
from core.testing.network import caches_unreachable
from guards import ratelimits
from guards.models import LimitCount

pytestmark = pytest.mark.django_db


@pytest.fixture
def two_codes_an_hour(settings):
    settings.RATELIMITS = {**settings.RATELIMITS, "sign_in_code": "2/h", "sign_in_ip": "100/h"}


def test_spellings_of_one_gmail_address_share_its_codes(two_codes_an_hour):
    """Issue 35: "Limits per email ignore plus-tags and dots (`user+N@gmail.com`)"."""
    caller = Caller(ip="198.51.100.7")
    for email in ("grace.hopper@gmail.com", "Grace.Hopper+1@gmail.com"):
        sign_in_code_send(caller=caller, email=email)
    with pytest.raises(LimitReached) as refused:
        sign_in_code_send(caller=caller, email="gracehopper+2@googlemail.com")
    assert refused.value.code == "email_limit"
    assert len(mail.outbox) == 2
    sign_in_code_send(caller=caller, email="grace.hopper2@gmail.com")  # another mailbox


def test_with_the_cache_down_codes_are_counted_in_the_database(two_codes_an_hour, settings):
    """Contract 6: a limit that guards a secret never allows when its counter store is
    down. A second process (its own per-process count empty) is refused as well."""
    caches_unreachable(settings)
    caller = Caller(ip="198.51.100.7")
    for _ in range(2):
        sign_in_code_send(caller=caller, email="grace.hopper@example.co.uk")
    assert LimitCount.objects.filter(scope="sign_in_code").get().count == 2
    ratelimits._process_counts.clear()  # as a fresh process starts
    with pytest.raises(LimitReached):
        sign_in_code_send(caller=caller, email="grace.hopper@example.co.uk")
    assert len(mail.outbox) == 2
