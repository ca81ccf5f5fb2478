"""Factories for partner, operator and supplier accounts, the intake payloads and
signatures they send, and the check of the webhook signatures they receive (used by
partners/tests/test_partners_* and other apps' tests)."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
from datetime import timedelta
from itertools import count

import factory
from django.utils import timezone
from factory.django import DjangoModelFactory

from partners.models import Account
from partners.services.accounts import account_created

_sequence = count(1)


class AccountFactory(DjangoModelFactory):
    """An approved partner account (no API key: use the ``make_account`` fixture for one)."""

    class Meta:
        model = Account
        skip_postgeneration_save = True

    kind = Account.Kind.PARTNER
    name = factory.Sequence(lambda n: f"Account {n}")
    slug = factory.Sequence(lambda n: f"account-{n}")
    approved = True

    @factory.post_generation
    def onboarded(obj, create, extracted, **kwargs):
        # As every door that creates an account does (partners.services.account_created).
        if create:
            account_created(account=obj)


def pickup_in(hours: float = 24) -> str:
    return (timezone.now() + timedelta(hours=hours)).replace(microsecond=0).isoformat()


def partner_job(**overrides) -> dict:
    """A valid new PartnerJob (seed 2.10) between two places the offline geocoder knows."""
    job = {
        "jobRef": f"JOB-{next(_sequence):05d}",
        "pickup": "Leeds station",
        "dropoff": "York",
        "pickupTime": pickup_in(),
        "passengerName": "Sam Taylor",
        "passengerPhone": "07700 900123",
        "passengerEmail": "sam.taylor@example.co.uk",
        "passengers": 2,
        "fare": 42.5,
        "notes": "2 large suitcases, 1 child seat",
    }
    job.update(overrides)
    return {k: v for k, v in job.items() if v is not None}


def hmac_hex(secret: str, body: bytes, timestamp: str | None = None) -> str:
    signed = body if timestamp is None else timestamp.encode() + b"." + body
    return hmac.new(secret.encode(), signed, hashlib.sha256).hexdigest()


def body_bytes(payload) -> bytes:
    return json.dumps(payload).encode()


def verify_by_hand(secret: str, headers, body: bytes) -> bool:
    """The Standard Webhooks check, written out: any v1 entry matching is enough."""
    signed = f"{headers['webhook-id']}.{headers['webhook-timestamp']}.".encode() + body
    key = base64.b64decode(secret.removeprefix("whsec_"), validate=True)
    expected = base64.b64encode(hmac.new(key, signed, hashlib.sha256).digest())
    entries = headers["webhook-signature"].split(" ")
    return any(
        version == "v1" and hmac.compare_digest(sig.encode(), expected)
        for version, _, sig in (entry.partition(",") for entry in entries)
    )
