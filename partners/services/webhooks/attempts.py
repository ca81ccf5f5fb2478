"""Attempts of webhook deliveries: outside any transaction, one worker at a time, each
attempt logged, failures retried on the Standard Webhooks schedule with jitter (contract
5.1); the due rows for the periodic task, and the back office's redelivery.
"""

from __future__ import annotations

import logging
import secrets
import time
from dataclasses import dataclass
from datetime import timedelta

import requests
from django.conf import settings
from django.db import transaction
from django.db.models import F
from django.utils import timezone

from core.task_queue import task_enqueue_on_commit
from dispatch.models import Offer, OfferStatus
from partners.models import Account, WebhookAttempt, WebhookDelivery, WebhookDeliveryStatus
from partners.services.webhooks.signing import webhook_headers
from partners.services.webhooks.transport import (
    webhook_address_check,
    webhook_delivery_url,
    webhook_post,
)

# The name the package had as one module: log readers and the log config select it.
logger = logging.getLogger("partners.services.webhooks")

# Standard Webhooks retry schedule (contract 5.1): waits before retries 1..9.
RETRY_SCHEDULE = (
    timedelta(seconds=5),
    timedelta(minutes=5),
    timedelta(minutes=30),
    timedelta(hours=2),
    timedelta(hours=5),
    timedelta(hours=10),
    timedelta(hours=14),
    timedelta(hours=20),
    timedelta(hours=24),
)
MAX_ATTEMPTS = 1 + len(RETRY_SCHEDULE)
JITTER = 0.1  # each wait is stretched or shrunk by up to 10%
# A claimed attempt holds the row this long; a worker that dies mid-request frees it then.
CLAIM_LEASE = timedelta(minutes=2)
# Connect and read timeouts (seconds); the read one is a setting (WEBHOOK_READ_TIMEOUT).
WEBHOOK_CONNECT_TIMEOUT_SECONDS = 5


@dataclass(frozen=True)
class AttemptOutcome:
    attempt: WebhookAttempt | None
    status: str
    retry_in: timedelta | None = None


def _retry_wait(attempts_made: int) -> timedelta:
    base = RETRY_SCHEDULE[attempts_made - 1]
    factor = 1 + JITTER * (2 * secrets.randbelow(10_001) / 10_000 - 1)
    return base * factor


def webhook_delivery_attempt(*, delivery_id: int) -> AttemptOutcome:
    """Make one attempt of a due delivery, outside any transaction.

    Guarantees: only one worker attempts a delivery at a time (a guarded UPDATE claims the
    row and leases it); every attempt is logged with status code, latency and error; 2xx
    delivers; 410 disables the account's endpoint (contract 5.1); anything else is retried
    on the schedule until MAX_ATTEMPTS, then the delivery fails. A delivery that is not
    due, or already claimed, is left alone (outcome status ``skipped``).
    """
    now = timezone.now()
    claimed = WebhookDelivery.objects.filter(
        pk=delivery_id, status=WebhookDeliveryStatus.PENDING, next_attempt_at__lte=now
    ).update(next_attempt_at=now + CLAIM_LEASE, attempt_count=F("attempt_count") + 1)
    if not claimed:
        return AttemptOutcome(attempt=None, status="skipped")
    delivery = WebhookDelivery.objects.select_related("account").get(pk=delivery_id)
    account = delivery.account

    if account.webhook_disabled_at is not None or not account.webhook_url:
        return _attempt_finish(
            delivery,
            status_code=None,
            latency_ms=0,
            error="Endpoint disabled or removed.",
            final=WebhookDeliveryStatus.FAILED,
        )
    if delivery.offer_id is not None and not _offer_still_open(delivery.offer_id):
        # A job offer nobody can take any more is not worth a fleet's attention.
        return _attempt_finish(
            delivery,
            status_code=None,
            latency_ms=0,
            error="Offer closed (answered, expired or withdrawn) before it was delivered.",
            final=WebhookDeliveryStatus.FAILED,
        )
    # Follow a URL changed in the back office since the event; a format's message goes to
    # its own path under it (TOMP: the provider's base URL + /legs/{id}/events).
    url = webhook_delivery_url(account.webhook_url, path=delivery.path)
    refusal, address = webhook_address_check(url)
    if refusal:
        return _attempt_finish(
            delivery,
            status_code=None,
            latency_ms=0,
            error=f"Refused: {refusal}",
            final=WebhookDeliveryStatus.FAILED,
            url=url,
        )

    timestamp = int(time.time())
    headers = {
        **delivery.headers,
        **webhook_headers(
            account=account,
            webhook_id=delivery.webhook_id,
            timestamp=timestamp,
            body=delivery.body,
        ),
    }
    started = time.monotonic()
    status_code, error, excerpt = None, "", ""
    try:
        # No redirects: a redirect could lead to an address the SSRF check refused.
        response = webhook_post(
            url,
            address=address,
            data=delivery.body.encode(),
            headers=headers,
            timeout=(WEBHOOK_CONNECT_TIMEOUT_SECONDS, settings.WEBHOOK_READ_TIMEOUT_SECONDS),
            allow_redirects=False,
        )
        status_code = response.status_code
        excerpt = response.text[:500]
    except requests.RequestException as exc:
        error = f"{type(exc).__name__}: {exc}"[:500]
    latency_ms = int((time.monotonic() - started) * 1000)

    if status_code is not None and 200 <= status_code < 300:
        return _attempt_finish(
            delivery,
            status_code=status_code,
            latency_ms=latency_ms,
            error="",
            final=WebhookDeliveryStatus.DELIVERED,
            excerpt=excerpt,
            url=url,
        )
    if status_code == 410:
        # Standard Webhooks: 410 Gone means the receiver wants no more; disable the endpoint.
        Account.objects.filter(pk=account.pk, webhook_disabled_at__isnull=True).update(
            webhook_disabled_at=timezone.now()
        )
        return _attempt_finish(
            delivery,
            status_code=status_code,
            latency_ms=latency_ms,
            error="410 Gone: endpoint disabled.",
            final=WebhookDeliveryStatus.FAILED,
            excerpt=excerpt,
            url=url,
        )
    if not error:
        error = f"HTTP {status_code}"
    return _attempt_finish(
        delivery,
        status_code=status_code,
        latency_ms=latency_ms,
        error=error,
        final=None,
        excerpt=excerpt,
        url=url,
    )


def _offer_still_open(offer_id: int) -> bool:
    return Offer.objects.filter(
        pk=offer_id, status=OfferStatus.OPEN, expires_at__gt=timezone.now()
    ).exists()


def _attempt_finish(
    delivery: WebhookDelivery,
    *,
    status_code: int | None,
    latency_ms: int,
    error: str,
    final: str | None,
    excerpt: str = "",
    url: str | None = None,
) -> AttemptOutcome:
    """Log the attempt and decide the delivery's next state in one transaction."""
    now = timezone.now()
    retry_in = None
    with transaction.atomic():
        attempt = WebhookAttempt.objects.create(
            delivery=delivery,
            attempted_at=now,
            status_code=status_code,
            latency_ms=latency_ms,
            error=error[:500],
            response_excerpt=excerpt[:500],
        )
        update: dict = {"last_status_code": status_code, "last_error": error[:500]}
        if url is not None:
            update["url"] = url[:500]
        if final is None and delivery.attempt_count >= MAX_ATTEMPTS:
            final = WebhookDeliveryStatus.FAILED
        if final is None:
            retry_in = _retry_wait(delivery.attempt_count)
            update.update(next_attempt_at=now + retry_in)
            status = WebhookDeliveryStatus.PENDING
        else:
            update.update(status=final, next_attempt_at=None)
            if final == WebhookDeliveryStatus.DELIVERED:
                update["delivered_at"] = now
            status = final
        WebhookDelivery.objects.filter(pk=delivery.pk).update(**update)
    # One line per attempt, under the id of the request (or task) that caused it.
    logger.info(
        "webhook %s %s to account %s: attempt %s, %s in %d ms, now %s",
        delivery.webhook_id,
        delivery.event_type,
        delivery.account_id,
        delivery.attempt_count,
        status_code if status_code is not None else error[:120],
        latency_ms,
        status,
    )
    if final == WebhookDeliveryStatus.FAILED:
        logger.warning(
            "webhook %s to %s failed: %s", delivery.webhook_id, delivery.account_id, error
        )
    return AttemptOutcome(attempt=attempt, status=status, retry_in=retry_in)


def webhook_deliveries_due(*, limit: int = 500) -> list[int]:
    """Ids of pending deliveries whose next attempt is due, oldest first."""
    return list(
        WebhookDelivery.objects.filter(
            status=WebhookDeliveryStatus.PENDING, next_attempt_at__lte=timezone.now()
        )
        .order_by("next_attempt_at")
        .values_list("pk", flat=True)[:limit]
    )


def webhook_delivery_redeliver(*, delivery: WebhookDelivery) -> WebhookDelivery:
    """Queue the delivery again now, with the same webhook-id and body (back-office action).

    The attempt count starts afresh so the full retry schedule applies again.
    """
    WebhookDelivery.objects.filter(pk=delivery.pk).update(
        status=WebhookDeliveryStatus.PENDING,
        next_attempt_at=timezone.now(),
        attempt_count=0,
        delivered_at=None,
    )
    delivery.refresh_from_db()
    # By name: partners.tasks imports this module.
    task_enqueue_on_commit("partners.tasks.webhook_delivery_send", delivery.pk)
    return delivery
