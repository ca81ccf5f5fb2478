"""POST /api/public/v1/passenger-verify (contract 3.4)."""

import pytest
from django.core import mail
from django.utils import timezone

from api.tests.assertions import assert_problem
from bookings.models import Passenger

pytestmark = pytest.mark.django_db
URL = "/api/public/v1/passenger-verify"


def test_genuine_unverified_email_gets_a_link(
    api_client, client, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        response = api_client.post(URL, {"email": "Mary.Seacole@Example.co.uk"}, format="json")
    assert response.status_code == 200
    assert response.json() == {
        "email": "Mary.Seacole@example.co.uk",
        "valid": True,
        "disposable": False,
        "role": False,
        "verified": False,
        "verificationSent": True,
    }
    link = next(w for w in mail.outbox[0].body.split() if "/passenger/confirm/" in w)
    assert client.get(link.replace("https://taxi.example", "")).status_code == 200
    again = api_client.post(URL, {"email": "mary.seacole@example.co.uk"}, format="json").json()
    assert again["verified"] is True
    assert again["verificationSent"] is False


@pytest.mark.parametrize(
    ("email", "flags"),
    [
        # valid means acceptable for a booking (contract 3.4), so false for these two.
        ("someone@mailinator.com", {"valid": False, "disposable": True, "role": False}),
        ("postmaster@example.co.uk", {"valid": False, "disposable": False, "role": True}),
        ("not-an-email", {"valid": False, "disposable": False, "role": False}),
    ],
)
def test_unacceptable_addresses_get_no_link(api_client, email, flags):
    answer = api_client.post(URL, {"email": email}, format="json").json()
    assert {k: answer[k] for k in flags} == flags
    assert answer["verificationSent"] is False
    assert not mail.outbox
    assert not Passenger.objects.exists()


def test_already_verified_email_is_reported(api_client):
    Passenger.objects.create(email="ada@example.co.uk", email_verified_at=timezone.now())
    answer = api_client.post(URL, {"email": "ada@example.co.uk"}, format="json").json()
    assert answer["verified"] is True
    assert answer["verificationSent"] is False


def test_missing_email_is_400(api_client):
    assert (
        "email"
        in assert_problem(api_client.post(URL, {}, format="json"), 400, "invalid_input")["errors"]
    )


@pytest.mark.parametrize("email", ["info@example.co.uk", "someone@mailinator.com"])
def test_role_and_disposable_addresses_are_not_valid(api_client, email):
    """Issue 13: "`passenger-verify` answers `valid: true` for `info@` and disposable
    addresses"."""
    answer = api_client.post(URL, {"email": email}, format="json").json()
    assert answer["valid"] is False
