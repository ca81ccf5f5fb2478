"""The sign-up pages state the fee, the threshold and the trial from billing's fee rules
(``{% fee_schedule %}``), in the rule's own terms: a week is free when earnings are not
over the threshold, so the threshold itself is free ("or less", never "under")."""

from decimal import Decimal

import pytest
from django.test import override_settings

pytestmark = pytest.mark.django_db


def test_signup_page_states_the_current_fee_rules(client):
    html = " ".join(client.get("/driver/signup/").content.decode().split())
    assert "a flat weekly subscription of £20," in html
    assert "free for your first 90 days" in html
    assert "you earn £500 or less" in html
    assert "under £" not in html


@override_settings(
    SUBSCRIPTION_WEEKLY_FEE_GBP=Decimal("17.50"),
    SUBSCRIPTION_FREE_EARNINGS_THRESHOLD_GBP=Decimal("650.00"),
    DRIVER_TRIAL_DAYS=60,
)
def test_signup_pages_follow_a_change_of_the_rules(client):
    signup = " ".join(client.get("/driver/signup/").content.decode().split())
    assert "a flat weekly subscription of £17.50" in signup
    assert "free for your first 60 days" in signup
    assert "you earn £650 or less" in signup
    done = client.get("/driver/signup/done/").content.decode()
    assert "your 60-day free trial" in done
