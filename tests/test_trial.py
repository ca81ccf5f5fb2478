"""One trial: the subscription (billing) holds every trial's length and end, accounts
start theirs through an explicit service call, and there is one audited extension."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.apps import apps
from django.contrib import admin
from django.contrib.auth import get_user_model
from django.test import RequestFactory
from rest_framework.test import APIClient

from billing.models import Subscription, SubscriptionAudit
from billing.services.subscriptions import subscriptions_ensure
from core.testing.places import LEEDS
from core.testing.sources import production_modules
from drivers.models import DriverStage
from drivers.tests.factories import DriverFactory, UserFactory, driver_at
from partners.models import Account
from partners.services.accounts import account_create

pytestmark = pytest.mark.django_db


def test_no_model_but_the_subscription_stores_a_trial_end():
    holders = [
        model._meta.label
        for model in apps.get_models()
        if any(field.name == "trial_ends_at" for field in model._meta.concrete_fields)
    ]
    assert holders == ["billing.Subscription"]


def test_trial_lengths_are_read_in_one_place():
    readers = [
        relative
        for relative, code in production_modules(exclude=("config/",))
        if re.search(r"settings\.\w*TRIAL_DAYS|\bTRIAL_DAYS\s*=|\w+_TRIAL_DAYS\s*=", code)
    ]
    assert readers == ["billing/fees.py"]


def test_creating_a_partner_account_starts_its_trial_by_a_service_call(settings):
    settings.PARTNER_TRIAL_DAYS = 30
    account, _ = account_create(kind="partner", name="RideHub")
    subscription = Subscription.objects.get(account=account)
    assert subscription.trial_ends_at == account.created_at + timedelta(days=30)
    # no receiver hides the rule: a bare row gets no subscription
    bare = Account.objects.create(kind="partner", name="Bare", slug="bare")
    assert not Subscription.objects.filter(account=bare).exists()


def test_an_account_added_in_the_back_office_starts_its_trial(admin_client):
    response = admin_client.post(
        "/admin/partners/account/add/",
        {
            "kind": "partner",
            "name": "Back Office Rides",
            "slug": "back-office-rides",
            "created_at_0": "2026-11-02",
            "created_at_1": "10:00:00",
            "daily_job_limit": 1000,
            "intake_format": "partner_job",
            "keys-TOTAL_FORMS": 0,
            "keys-INITIAL_FORMS": 0,
        },
    )
    assert response.status_code == 302, response.content.decode()[:2000]
    account = Account.objects.get(slug="back-office-rides")
    assert Subscription.objects.filter(account=account).exists()


def test_there_is_one_extend_trial_action_and_it_is_audited(admin_client):
    # given the admin site, every action whose name speaks of a trial
    request = RequestFactory().get("/admin/")
    request.user = get_user_model().objects.get(username="admin")
    trial_actions = [
        (model._meta.label, name)
        for model in apps.get_models()
        if admin.site.is_registered(model)
        for name in admin.site.get_model_admin(model).get_actions(request)
        if "trial" in name
    ]
    assert trial_actions == [("billing.Subscription", "extend_trial")]
    # when an administrator extends a partner's trial through it
    account, _ = account_create(kind="partner", name="Slow Integration")
    subscription = Subscription.objects.get(account=account)
    admin_client.post(
        "/admin/billing/subscription/",
        {
            "action": "extend_trial",
            "_selected_action": [subscription.pk],
            "apply": "1",
            "days": 14,
            "reason": "integration delayed",
        },
    )
    # then the trial is 14 days longer and the audit says who and why
    extended = Subscription.objects.get(pk=subscription.pk)
    assert extended.trial_ends_at == subscription.trial_ends_at + timedelta(days=14)
    audit = SubscriptionAudit.objects.get(subscription=subscription)
    assert (audit.actor.username, audit.reason) == ("admin", "integration delayed")


def test_driver_app_shows_the_trial_end_of_the_subscription(settings):
    settings.DRIVER_TRIAL_DAYS = 90
    driver = driver_at(LEEDS, stage=DriverStage.TRIAL)
    driver.user = UserFactory(username="mo@example.co.uk")
    driver.save(update_fields=["user"])
    login = {"username": "mo@example.co.uk", "password": "correct horse battery"}
    # before billing has created the subscription, the end is not known yet
    body = APIClient().post("/api/public/v1/driver/login", login, format="json").json()
    assert body["driver"]["trialEndsAt"] is None
    subscriptions_ensure()
    body = APIClient().post("/api/public/v1/driver/login", login, format="json").json()
    subscription = Subscription.objects.get(driver=driver)
    assert subscription.trial_ends_at == driver.approved_at + timedelta(days=90)
    assert body["driver"]["trialEndsAt"] == subscription.trial_ends_at.isoformat().replace(
        "+00:00", "Z"
    )


def test_unapproved_drivers_have_no_trial():
    DriverFactory(stage=DriverStage.SIGNED_UP, approved_at=None)
    assert subscriptions_ensure() == 0
