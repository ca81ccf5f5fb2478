"""Signing secrets in the Standard Webhooks format, and their rotation (contract 5.1).

Deliveries are real (the worker's HTTP request recorded with ``responses``) and verified
with the official ``standardwebhooks`` library, given the secret string exactly as the
back office shows it on the account's page.
"""

from __future__ import annotations

import base64
import io
import json
import re
import secrets
from datetime import timedelta

import pytest
import responses
import time_machine
from django.core.management import call_command
from django.urls import reverse
from django.utils import timezone
from standardwebhooks.webhooks import Webhook, WebhookVerificationError

from bookings.models import Booking
from partners.models import Account, WebhookDelivery
from partners.tests.factories import hmac_hex, partner_job

HOOK = "https://partner.example/hooks/taxi"
JOBS = "/api/public/v1/jobs"

pytestmark = pytest.mark.django_db


@pytest.fixture
def partner(make_account):
    return make_account("partner", name="Hooked", slug="hooked", webhook_url=HOOK)


@pytest.fixture
def back_office(client, django_user_model):
    user = django_user_model.objects.create_superuser("ops", "ops@example.com", "pw-not-used")
    client.force_login(user)
    return client


def shown_secret(back_office, account: Account, element_id: str = "signing-secret") -> str:
    """The secret as the back office shows it on the account's change page."""
    page = back_office.get(reverse("admin:partners_account_change", args=[account.pk]))
    assert page.status_code == 200
    match = re.search(rf'<code id="{element_id}">([^<]+)</code>', page.content.decode())
    assert match, f"no {element_id} on the account page"
    return match.group(1)


def deliver_one(api_client, account, django_capture_on_commit_callbacks) -> tuple[dict, bytes]:
    """Push a job as ``account``; return the headers and body of its booking.created POST."""
    api_client.credentials(HTTP_X_API_KEY=account.raw_key)
    with django_capture_on_commit_callbacks(execute=True):
        response = api_client.post(JOBS, data=partner_job(), format="json")
    assert response.status_code == 200, response.content
    booking = Booking.objects.get(reference=response.json()["results"][0]["bookingReference"])
    delivery = WebhookDelivery.objects.get(booking=booking, event_type="booking.created")
    [call] = [c for c in responses.calls if c.request.headers["webhook-id"] == delivery.webhook_id]
    return dict(call.request.headers), call.request.body


def test_a_new_secret_is_whsec_and_base64_of_random_bytes(partner):
    secret = partner.signing_secret
    assert secret.startswith("whsec_")
    key = base64.b64decode(secret.removeprefix("whsec_"), validate=True)
    assert 24 <= len(key) <= 64
    assert Account.objects.create(kind="partner", name="B", slug="b").signing_secret != secret


@responses.activate
def test_a_delivery_verifies_with_the_library_and_the_secret_the_back_office_shows(
    api_client, partner, back_office, django_capture_on_commit_callbacks
):
    # given a receiver configured with the secret exactly as the back office shows it
    responses.post(HOOK, status=204)
    secret = shown_secret(back_office, partner)
    assert secret == partner.signing_secret

    # when a real delivery arrives
    headers, body = deliver_one(api_client, partner, django_capture_on_commit_callbacks)

    # then the official library verifies it with that string, and a changed body fails
    assert Webhook(secret).verify(body, headers)["type"] == "booking.created"
    with pytest.raises(WebhookVerificationError):
        Webhook(secret).verify(body.replace(b"confirmed", b"cancelled"), headers)


@responses.activate
def test_a_legacy_secret_keeps_its_key_and_verifies_as_the_back_office_shows_it(
    api_client, partner, back_office, django_capture_on_commit_callbacks
):
    # given an account still on a secret issued before the Standard Webhooks format
    legacy = "whsec_" + secrets.token_urlsafe(32)
    Account.objects.filter(pk=partner.pk).update(signing_secret=legacy)
    responses.post(HOOK, status=204)

    # when a delivery arrives
    headers, body = deliver_one(api_client, partner, django_capture_on_commit_callbacks)

    # then the back office shows a standard secret the official library verifies with
    shown = shown_secret(back_office, partner)
    assert shown != legacy
    assert shown.startswith("whsec_")
    Webhook(shown).verify(body, headers)
    # and a receiver set up the old way (the legacy string's bytes as the key) still verifies
    Webhook(legacy.encode()).verify(body, headers)
    # and the legacy string still keys inbound HMACs, as partners were told (contract 1.2)
    signed = json.dumps(partner_job()).encode()
    response = api_client.generic(
        "POST",
        JOBS,
        signed,
        content_type="application/json",
        HTTP_X_PARTNER=partner.slug,
        HTTP_X_SIGNATURE=hmac_hex(legacy, signed),
    )
    assert response.status_code == 200, response.content


@responses.activate
def test_while_rotating_deliveries_verify_with_the_old_and_the_new_secret(
    api_client, partner, back_office, django_capture_on_commit_callbacks
):
    # given a receiver holding the secret the back office showed before the rotation
    responses.post(HOOK, status=204)
    old = shown_secret(back_office, partner)

    # when the secret is rotated from the back office
    changelist = reverse("admin:partners_account_changelist")
    rotated = back_office.post(
        changelist, {"action": "rotate_secret", "_selected_action": [partner.pk]}, follow=True
    )
    assert rotated.status_code == 200
    new = shown_secret(back_office, partner)
    assert new != old
    assert new in rotated.content.decode()  # the action's message shows the new one
    assert shown_secret(back_office, partner, "previous-signing-secret") == old

    # then a delivery carries two v1 signatures, and each secret verifies it
    headers, body = deliver_one(api_client, partner, django_capture_on_commit_callbacks)
    assert len(headers["webhook-signature"].split(" ")) == 2
    Webhook(old).verify(body, headers)
    Webhook(new).verify(body, headers)


@responses.activate
def test_a_rotated_out_secret_stops_signing_after_the_rotation_period(
    api_client, partner, back_office, django_capture_on_commit_callbacks, settings
):
    # given a rotation with a 24 h overlap
    settings.WEBHOOK_SECRET_ROTATION_HOURS = 24
    responses.post(HOOK, status=204)
    old = partner.signing_secret
    call_command("rotate_signing_secret", "--slug", partner.slug, stdout=io.StringIO())
    partner.refresh_from_db()
    new = partner.signing_secret

    # when a delivery is made after the overlap
    with time_machine.travel(timezone.now() + timedelta(hours=24, minutes=1)):
        headers, body = deliver_one(api_client, partner, django_capture_on_commit_callbacks)
        # then only the new secret signs it
        assert len(headers["webhook-signature"].split(" ")) == 1
        Webhook(new).verify(body, headers)
        with pytest.raises(WebhookVerificationError):
            Webhook(old).verify(body, headers)
        # and the back office no longer shows the old one
        page = back_office.get(reverse("admin:partners_account_change", args=[partner.pk]))
        assert old not in page.content.decode()


def test_the_add_page_shows_no_secret_before_one_is_issued(back_office):
    page = back_office.get(reverse("admin:partners_account_add"))

    assert page.status_code == 200
    assert "Issued when the account is saved" in page.content.decode()
    assert 'id="signing-secret"' not in page.content.decode()


def test_the_rotate_command_prints_the_new_secret_once(partner, capsys):
    call_command("rotate_signing_secret", "--slug", partner.slug)

    printed = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    partner.refresh_from_db()
    assert printed["slug"] == partner.slug
    assert printed["signingSecret"] == partner.signing_secret
    assert partner.previous_signing_secret_live()
