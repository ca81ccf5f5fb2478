"""Concurrent sign-ups with one email: one login, the rest told why (PostgreSQL and SQLite)."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.test import Client

from core.testing.concurrency import race
from drivers.models import Driver
from drivers.tests.factories import signup_form

pytestmark = pytest.mark.django_db(transaction=True)


def test_eight_concurrent_signups_with_one_email_make_one_driver_and_no_500():
    """Finding (issue 24): "8 concurrent driver sign-ups with one email: 7 are 500
    (`IntegrityError`)." """

    def sign_up():
        client = Client(raise_request_exception=False)
        response = client.post("/driver/signup/", signup_form())
        return response.status_code, response.content.decode()

    outcomes = race(*[sign_up for _ in range(8)])
    statuses = sorted(status for status, _ in outcomes)
    assert statuses == [200] * 7 + [302]
    # each loser sees the form again with what is wrong (the email, or another of the
    # winner's now-taken details, depending on when it was checked)
    assert all(
        "Please correct the fields marked below." in page
        for status, page in outcomes
        if status == 200
    )
    assert get_user_model().objects.filter(username="asha.khan@example.co.uk").count() == 1
    assert Driver.objects.filter(email="asha.khan@example.co.uk").count() == 1
