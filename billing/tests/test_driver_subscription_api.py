"""GET /api/public/v1/driver/subscription (contract 6) and the page beside it: one
overview (billing.services.overview) feeds both."""

from __future__ import annotations

from datetime import date, datetime, timedelta
from decimal import Decimal

import pytest
import time_machine
from django.contrib.auth import get_user_model
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from billing.models import Invoice, Subscription, SubscriptionStage
from billing.services.collection import invoices_collect
from billing.services.invoicing import invoices_generate_week
from billing.services.subscriptions import subscription_get_or_create_for_driver
from billing.tests.records import after, at_london, payment
from drivers.models import DriverStage
from drivers.tests.factories import BilledDriverFactory, DriverFactory, UserFactory

pytestmark = pytest.mark.django_db

URL = "/api/public/v1/driver/subscription"
DUE_WEEK = date(2026, 6, 8)
FREE_WEEK = date(2026, 6, 15)
THIS_WEEK = date(2026, 6, 22)
# Wednesday of THIS_WEEK, noon in the UK
NOW = datetime(2026, 6, 24, 12, 0, tzinfo=at_london(THIS_WEEK).tzinfo)


def token_client(user) -> APIClient:
    token, _ = Token.objects.get_or_create(user=user)
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {token.key}")
    return client


@pytest.fixture
def billed_driver():
    """Past the trial: a due invoice, a free week, and 550.00 earned so far this week."""
    driver = BilledDriverFactory(user=UserFactory(), name="Asha Khan")
    payment(driver=driver, amount="720.00", at=at_london(DUE_WEEK + timedelta(days=1)))
    payment(driver=driver, amount="120.00", at=at_london(FREE_WEEK + timedelta(days=2)))
    for week in (DUE_WEEK, FREE_WEEK):
        invoices_generate_week(week_start=week, now=after(week))
        invoices_collect(week_start=week)
    payment(driver=driver, amount="300.00", at=at_london(THIS_WEEK, 9))
    payment(driver=driver, amount="250.00", at=at_london(THIS_WEEK + timedelta(days=1), 18))
    return driver


def test_a_billed_driver_sees_stage_fees_the_week_so_far_and_invoices(billed_driver):
    # When the app asks for the subscription
    with time_machine.travel(NOW, tick=False):
        response = token_client(billed_driver.user).get(URL)

    # Then it has the contract's shape, and the figures come from the records
    assert response.status_code == 200
    body = response.json()
    assert set(body) == {
        "stage",
        "trialEndsAt",
        "weeklyFeeGBP",
        "freeBelowGBP",
        "currentWeek",
        "invoices",
    }
    assert body["stage"] == "billed"
    assert body["trialEndsAt"].startswith("2025-04-06")  # 90 days from 6 January 2025
    assert Decimal(str(body["weeklyFeeGBP"])) == Decimal("20.00")
    assert Decimal(str(body["freeBelowGBP"])) == Decimal("500.00")
    # 300 + 250 this week passes 500: this week costs the weekly fee if it ended now
    assert body["currentWeek"]["start"] == "2026-06-22"
    assert Decimal(str(body["currentWeek"]["earningsGBP"])) == Decimal("550.00")
    assert Decimal(str(body["currentWeek"]["feeDueGBP"])) == Decimal("20.00")
    # the one invoiced week (the free week has no invoice)
    due = Invoice.objects.get(week_start=DUE_WEEK)
    assert body["invoices"] == [
        {
            "number": due.display_number,
            "weekStart": "2026-06-08",
            "totalGBP": 20.0,
            "status": "due",
            "url": f"https://taxi.example/driver/billing/invoices/{due.pk}/",
        }
    ]


def test_the_week_so_far_is_free_while_earnings_do_not_pass_the_threshold():
    # Given a billed driver who has earned exactly the threshold this week
    driver = BilledDriverFactory(user=UserFactory())
    payment(driver=driver, amount="500.00", at=at_london(THIS_WEEK, 9))
    with time_machine.travel(NOW, tick=False):
        body = token_client(driver.user).get(URL).json()
    # Then the week is still free (the fee applies once earnings pass it)
    assert Decimal(str(body["currentWeek"]["earningsGBP"])) == Decimal("500.00")
    assert Decimal(str(body["currentWeek"]["feeDueGBP"])) == Decimal("0.00")


def test_a_driver_in_the_trial_owes_nothing_this_week(billed_driver):
    driver = DriverFactory(user=UserFactory(), approved_at=NOW - timedelta(days=10))
    payment(driver=driver, amount="900.00", at=at_london(THIS_WEEK, 10))
    with time_machine.travel(NOW, tick=False):
        body = token_client(driver.user).get(URL).json()
    assert body["stage"] == "trial"
    assert body["trialEndsAt"].startswith("2026-09-12")
    assert Decimal(str(body["currentWeek"]["earningsGBP"])) == Decimal("900.00")
    assert Decimal(str(body["currentWeek"]["feeDueGBP"])) == Decimal("0.00")
    assert body["invoices"] == []


def test_a_suspended_subscription_is_paused_for_the_app():
    driver = BilledDriverFactory(user=UserFactory(), stage=DriverStage.SUSPENDED)
    subscription = subscription_get_or_create_for_driver(driver=driver)
    Subscription.objects.filter(pk=subscription.pk).update(stage=SubscriptionStage.SUSPENDED)
    assert token_client(driver.user).get(URL).json()["stage"] == "paused"


def test_an_unapproved_driver_has_a_trial_that_has_not_started():
    driver = DriverFactory(user=UserFactory(), stage=DriverStage.SIGNED_UP, approved_at=None)
    body = token_client(driver.user).get(URL).json()
    assert (body["stage"], body["trialEndsAt"]) == ("trial", None)


@pytest.mark.parametrize("header", [None, "Token not-a-token", "Basic abc"])
def test_without_a_driver_token_it_is_401_problem_json(header):
    client = APIClient()
    if header:
        client.credentials(HTTP_AUTHORIZATION=header)
    response = client.get(URL)
    assert response.status_code == 401
    assert response["Content-Type"] == "application/problem+json"
    assert response.json()["code"] == "unauthenticated"


def test_a_token_of_a_login_that_is_not_a_driver_is_403_problem_json():
    user = get_user_model().objects.create_user("dispatcher", password="pw-123456!")
    response = token_client(user).get(URL)
    assert response.status_code == 403
    assert response["Content-Type"] == "application/problem+json"
    assert response.json()["code"] == "permission_denied"


def test_the_page_shows_what_the_api_says(client, billed_driver):
    # Given the same driver on the page and in the app
    client.force_login(billed_driver.user)
    with time_machine.travel(NOW, tick=False):
        api = token_client(billed_driver.user).get(URL).json()
        html = client.get("/driver/billing/").content.decode()
    # Then the page's week so far is the API's
    week = html.split('id="current-week">', 1)[1].split("</dd>", 1)[0]
    assert f"earnings £{Decimal(str(api['currentWeek']['earningsGBP'])):.2f}" in week
    assert f"software fee so far £{Decimal(str(api['currentWeek']['feeDueGBP'])):.2f}" in week
    assert api["invoices"][0]["number"] in html


def test_the_subscription_endpoint_is_in_the_openapi_document(client):
    schema = client.get("/api/public/openapi.json").json()
    operation = schema["paths"]["/api/public/v1/driver/subscription"]["get"]
    assert {"200", "401", "403", "429"} <= set(operation["responses"])
    assert operation["operationId"] == "driver_subscription"
