"""localstripe (PyPI), a stateful fake of Stripe's HTTP API and of Stripe.js, run as a
real server for the billing tests: its own port, stopped by its PID.

What it lacks, and how the tests cover it (recorded from Stripe's API reference,
docs.stripe.com/api): Checkout sessions and Bacs Direct Debit (``bacs_debit`` payment
methods and mandates), disputes, and idempotency keys (it charges again for a repeated
key; the billing code does not rely on it, see billing.services.payments).
"""

from __future__ import annotations

import hashlib
import hmac
import json
import socket
import subprocess
import sys
import time
from contextlib import suppress
from pathlib import Path

import requests

BIN = Path(sys.executable).parent
WEBHOOK_SECRET = "whsec_billing_tests"
SECRET_KEY = "sk_test_billing"
PUBLISHABLE_KEY = "pk_test_billing"

# Stripe's test card numbers (docs.stripe.com/testing), as localstripe implements them.
CARD_OK = "4242424242424242"
CARD_DECLINES_CHARGES = "4000000000000341"  # attaches, then every charge is declined


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class LocalStripe:
    def __init__(self, port: int | None = None, *, in_memory: bool = False) -> None:
        """``in_memory``: without localstripe's write of its whole store to disk on every
        change (``billing.tests.localstripe_in_memory``), for the benchmark's large stores."""
        self.port = port or free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.in_memory = in_memory
        self.process: subprocess.Popen | None = None

    def start(self) -> LocalStripe:
        if self.in_memory:
            program = [sys.executable, "-m", "billing.tests.localstripe_in_memory"]
        else:
            program = [str(BIN / "localstripe")]
        self.process = subprocess.Popen(  # noqa: S603 (our own interpreter and arguments)
            [*program, "--port", str(self.port), "--from-scratch"],
            cwd=Path(__file__).resolve().parents[2],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            with suppress(OSError), socket.create_connection(("127.0.0.1", self.port), 0.2):
                return self
            time.sleep(0.1)
        self.stop()
        raise RuntimeError("localstripe did not start")

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=10)

    def flush(self) -> None:
        requests.delete(f"{self.base}/_config/data", timeout=5)

    def get(self, path: str, **params) -> dict:
        response = requests.get(
            f"{self.base}{path}", params=params, auth=(SECRET_KEY, ""), timeout=10
        )
        response.raise_for_status()
        return response.json()

    def confirm_card_setup(self, client_secret: str, number: str) -> dict:
        """What localstripe's Stripe.js does on the driver's phone (confirmCardSetup)."""
        setup_id = client_secret.split("_secret_")[0]
        body = {
            "key": PUBLISHABLE_KEY,
            "use_stripe_sdk": True,
            "client_secret": client_secret,
            "payment_method_data": {
                "type": "card",
                "card": {"number": number, "exp_month": "12", "exp_year": "2034", "cvc": "123"},
                "billing_details": {"address": {"postal_code": "LS1 4AP"}},
            },
        }
        response = requests.post(
            f"{self.base}/v1/setup_intents/{setup_id}/confirm", data=json.dumps(body), timeout=10
        )
        response.raise_for_status()
        return response.json()

    def events(self) -> list[dict]:
        return self.get("/v1/events", limit=100)["data"]


def signed(payload: dict | str, secret: str = WEBHOOK_SECRET, at: int | None = None):
    """A body and Stripe-Signature header as Stripe signs webhooks (t=..., v1=HMAC-SHA256
    of "t.body"), as localstripe's own webhook sender does."""
    body = payload if isinstance(payload, str) else json.dumps(payload)
    at = at or int(time.time())
    digest = hmac.new(secret.encode(), f"{at}.{body}".encode(), hashlib.sha256).hexdigest()
    return body, f"t={at},v1={digest}"
