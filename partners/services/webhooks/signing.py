"""Signing outbound webhooks, Standard Webhooks style (contract 5.1).

``webhook-signature`` is ``v1,<base64(HMAC-SHA256(key, "{id}.{timestamp}.{body}"))>``, one
entry per live secret (the current one first) while a secret is being rotated; the key is
:func:`partners.models.webhook_signing_key`.
"""

from __future__ import annotations

import base64
import hashlib
import hmac

from partners.models import Account, webhook_signing_key

USER_AGENT = "DirectToDriver-Webhooks/1.0"


def webhook_signature(*, secret: str, webhook_id: str, timestamp: int, body: str) -> str:
    """One ``v1,<base64>`` entry, keyed by :func:`partners.models.webhook_signing_key`."""
    signed = f"{webhook_id}.{timestamp}.{body}".encode()
    digest = hmac.new(webhook_signing_key(secret), signed, hashlib.sha256).digest()
    return "v1," + base64.b64encode(digest).decode()


def webhook_signature_header(
    *, account: Account, webhook_id: str, timestamp: int, body: str
) -> str:
    return " ".join(
        webhook_signature(secret=s, webhook_id=webhook_id, timestamp=timestamp, body=body)
        for s in account.signing_secrets()
    )


def webhook_headers(*, account: Account, webhook_id: str, timestamp: int, body: str) -> dict:
    return {
        "Content-Type": "application/json",
        "User-Agent": USER_AGENT,
        "webhook-id": webhook_id,
        "webhook-timestamp": str(timestamp),
        "webhook-signature": webhook_signature_header(
            account=account, webhook_id=webhook_id, timestamp=timestamp, body=body
        ),
    }
