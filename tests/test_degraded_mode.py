"""Degraded but serving (contract 1.4): with the cache and the broker unreachable, quotes
and bookings are served, and no booking is lost."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from datetime import timedelta
from pathlib import Path

import pytest
from django.db import connection
from django.utils import timezone

from bookings.models import Booking
from core.testing.network import closed_port

ROOT = Path(__file__).resolve().parent.parent

# Runs in a process of its own under the local configuration, as a server would, with
# REDIS_URL naming a port nobody listens on (the shared Redis is never stopped).
SERVICE = """
import json, sys
import django
django.setup()
from django.test import Client

client = Client()
depart = sys.argv[1]
answers = []

def post(path, body):
    response = client.post(path, data=json.dumps(body), content_type="application/json")
    answers.append({"path": path, "status": response.status_code, "body": response.json()})
    return response.json()

quote = post("/api/public/v1/quote", {"pickup": "Leeds station", "dropoff": "Harrogate",
                                      "departAt": depart, "passengers": 2})
post("/api/public/v1/booking", {"quote_id": quote.get("quote_id"),
                                "passenger_name": "Ada Lovelace",
                                "passenger_email": "ada.lovelace@example.co.uk",
                                "passenger_phone": "+447700900111",
                                "payment_method": "cash_to_driver"})
post("/api/public/v1/booking", {"pickup": "Leeds station", "dropoff": "York",
                                "departAt": depart, "passengerName": "Grace Hopper",
                                "passengerEmail": "grace.hopper@example.co.uk",
                                "passengerPhone": "+447700900321", "passengers": 1})
print(json.dumps(answers))
"""


def this_test_database_url() -> str:
    settings = connection.settings_dict
    if connection.vendor == "sqlite":
        return f"sqlite:///{settings['NAME']}"
    user = settings["USER"] + (f":{settings['PASSWORD']}" if settings["PASSWORD"] else "")
    return f"postgres://{user}@{settings['HOST']}:{settings['PORT']}/{settings['NAME']}"


@pytest.mark.django_db(transaction=True)
@pytest.mark.real_clock  # the server runs in another process, on the machine's clock
def test_with_cache_and_broker_on_a_closed_port_quotes_and_bookings_are_served(tariffs):
    """Issue 13: "Redis unreachable: every rate-limited endpoint is 500"."""
    port = closed_port()
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "config.settings.local",
        "DATABASE_URL": this_test_database_url(),
        "REDIS_URL": f"redis://127.0.0.1:{port}/0",
        "CELERY_TASK_ALWAYS_EAGER": "0",
        "SECRET_KEY": "degraded-mode-test",
        "DJANGO_DEBUG": "0",
        "LOG_LEVEL": "WARNING",
    }
    depart = (timezone.now() + timedelta(days=2)).isoformat().replace("+00:00", "Z")
    result = subprocess.run(
        [sys.executable, "-c", SERVICE, depart],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    answers = json.loads(result.stdout.strip().splitlines()[-1])

    assert [a["status"] for a in answers] == [200, 201, 201], answers
    # Nothing lost: both bookings are committed rows, the dispatcher's outbox, waiting for
    # the relay to hand them over once the broker is back (the request published nothing).
    references = {a["body"]["bookingReference"] for a in answers[1:]}
    assert set(Booking.objects.values_list("reference", flat=True)) == references
    waiting = Booking.objects.filter(dispatch_started_at__isnull=True, status="confirmed")
    assert set(waiting.values_list("reference", flat=True)) == references
    # And the service said what happened.
    assert "cache unreachable" in result.stderr
