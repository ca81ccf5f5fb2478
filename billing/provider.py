"""The Stripe client, configured from settings only (issue 36).

Every call to the provider goes through ``stripe_client()``: the official ``stripe``
package's ``StripeClient`` with the secret key, a timeout and, when ``STRIPE_API_BASE`` is
set, another API host (localstripe in tests and ``make demo``). No card number or bank
account number reaches this service: the driver types them into Stripe's own fields.

``STRIPE_API_SHARDS`` is for the billing benchmark only (production has one provider URL,
and ``check --deploy`` refuses shards with a live key): several localstripe processes,
each holding the customers of the drivers whose id maps to it, because localstripe's cost
per request grows with everything it stores. Calls made for a driver
(``stripe_client(driver_id=...)``: customers, ways to pay, charges, refunds) go to that
driver's shard; the webhook flows, which know no driver, keep ``STRIPE_API_BASE``.
"""

from __future__ import annotations

import functools
from typing import Any

import stripe
from django.conf import settings


class ProviderUnavailable(Exception):
    """The provider could not be reached or answered with a server error; try later."""


def provider_configured() -> bool:
    return bool(settings.STRIPE_SECRET_KEY)


def stripe_client(*, driver_id: int | None = None) -> stripe.StripeClient:
    """One client per configuration and process, so its HTTP connections are reused
    (stripe's RequestsClient keeps a session per thread). ``driver_id``: the driver the
    call is for, which picks the shard when ``STRIPE_API_SHARDS`` is set."""
    return _client(
        settings.STRIPE_SECRET_KEY,
        api_base(driver_id=driver_id).rstrip("/"),
        settings.STRIPE_TIMEOUT_SECONDS,
    )


def api_base(*, driver_id: int | None = None) -> str:
    """The provider's URL for this driver's calls ("" for Stripe's own)."""
    shards = settings.STRIPE_API_SHARDS
    if shards and driver_id is not None:
        return shards[driver_id % len(shards)]
    return settings.STRIPE_API_BASE


@functools.cache  # one entry per configured URL
def _client(key: str, base: str, timeout: int) -> stripe.StripeClient:
    return stripe.StripeClient(
        key,
        base_addresses={"api": base} if base else {},
        http_client=stripe.RequestsClient(timeout=timeout),
        max_network_retries=2,
    )


def plain(obj) -> dict:
    """A provider object as a plain dict (nested objects too): the billing services read
    Stripe's answers and webhook payloads alike, by key."""
    if obj is None:
        return None
    return obj.to_dict() if hasattr(obj, "to_dict") else dict(obj)


def stripe_js_url() -> str:
    """Stripe.js from Stripe, or localstripe's stand-in when the API base points there."""
    base = settings.STRIPE_API_BASE.rstrip("/")
    return f"{base}/js.stripe.com/v3/" if base else "https://js.stripe.com/v3/"


def pence(amount) -> int:
    """A Decimal pounds amount as the integer minor units Stripe takes."""
    return int((amount * 100).to_integral_value())


def object_id(value: Any) -> str:
    """An expandable field's id, whether the provider sent the id or the object."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    return value.get("id", "") if isinstance(value, dict) else getattr(value, "id", "")


def webhook_event(*, payload: bytes, signature: str):
    """The event, verified with Stripe's signature scheme; raises ``ValueError`` (bad
    payload) or ``stripe.SignatureVerificationError`` (bad or missing signature)."""
    return stripe.Webhook.construct_event(payload, signature, settings.STRIPE_WEBHOOK_SECRET)
