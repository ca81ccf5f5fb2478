"""Test helpers for partner, operator and supplier intake (used by tests/test_partners_*)."""

from __future__ import annotations

import hashlib
import hmac
import json
from datetime import date, timedelta
from itertools import count

from django.utils import timezone

_sequence = count(1)


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


def driver_create(*, operator=None, name: str = "Asha Khan", registration: str | None = None):
    from drivers.models import Driver, DriverStage, Vehicle

    n = next(_sequence)
    driver = Driver.objects.create(
        name=name,
        phone=f"+4477009{n:05d}",
        stage=DriverStage.APPROVED,
        approved_at=timezone.now(),
        operator=operator,
        licensing_authority="Leeds City Council",
        licence_number=f"LCC{n:06d}",
        licence_expiry=date.today() + timedelta(days=365),
        base_city="Leeds",
        base_lat=53.7954,
        base_lng=-1.5475,
    )
    Vehicle.objects.create(
        driver=driver,
        make="Toyota",
        model="Corolla",
        colour="Silver",
        registration=registration or f"AB{n % 100:02d} CDE",
        licensing_authority="Leeds City Council",
        plate_expiry=date.today() + timedelta(days=365),
    )
    return driver
