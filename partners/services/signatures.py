"""A signed request is good once (contract 1.2).

Authentication (``partners.authentication``) verifies an HMAC and then claims it here;
the HTTP edge records the response as the request's outcome. A copy of the request sent
again (a retry, or someone who captured it) is answered with that first outcome and
changes nothing: a replayed old amendment can never undo a later one.

Rows of signatures with ``x-timestamp`` are purged by a periodic task once their window
(``SIGNED_REQUEST_WINDOW_SECONDS``) has passed (they could not be accepted again anyway);
signatures without a timestamp stay valid, and remembered, for good.
"""

from __future__ import annotations

import datetime as dt
import hashlib
from dataclasses import dataclass

from django.conf import settings
from django.db import IntegrityError, transaction
from django.utils import timezone

from core.errors import DomainError
from partners.models import Account, SignedRequest

# How far x-timestamp may be from now (contract 1.2).
# A claim still in flight after this long belongs to a request that died; a copy of the
# request may take it over (the use cases themselves are idempotent on their natural keys).
IN_FLIGHT_TIMEOUT = dt.timedelta(minutes=5)
# Outcomes that say "try again": not the request's outcome, so a retry really retries.
RETRYABLE_STATUSES = frozenset({409, 429, 503})


@dataclass(frozen=True)
class SignedOutcome:
    status: int
    content_type: str
    body: bytes


class SignedRequestRepeated(Exception):  # noqa: N818 (not an error: the answer to a repeat)
    """The request's signature was accepted before: answer with its first outcome."""

    def __init__(self, outcome: SignedOutcome) -> None:
        super().__init__(f"signed request repeated (first outcome {outcome.status})")
        self.outcome = outcome


def signature_digest(*, account: Account, signature: str) -> str:
    return hashlib.sha256(f"{account.pk}:{signature}".encode()).hexdigest()


def signed_request_claim(
    *,
    account: Account,
    signature: str,
    signed_at: dt.datetime | None,
    method: str,
    path: str,
    now: dt.datetime | None = None,
) -> SignedRequest:
    """Claim a verified signature for this request; returns the claim.

    Guarantees: of any number of copies of one signed request, exactly one runs (the
    unique (account, digest) constraint decides, not a check in Python). The others get
    :class:`SignedRequestRepeated` with the first outcome once it is recorded, or 409
    ``idempotency_conflict`` while the first is still running.
    """
    now = now or timezone.now()
    window = dt.timedelta(seconds=settings.SIGNED_REQUEST_WINDOW_SECONDS)
    digest = signature_digest(account=account, signature=signature)
    for _ in range(3):
        try:
            with transaction.atomic():
                return SignedRequest.objects.create(
                    account=account,
                    digest=digest,
                    signed_at=signed_at,
                    expires_at=signed_at + window if signed_at else None,
                    method=method[:8],
                    path=path[:255],
                    created_at=now,
                )
        except IntegrityError:
            first = SignedRequest.objects.filter(account=account, digest=digest).first()
        if first is None:
            continue  # forgotten between our insert and our read: claim again
        if first.state == SignedRequest.State.DONE:
            raise SignedRequestRepeated(
                SignedOutcome(
                    status=first.response_status or 200,
                    content_type=first.response_content_type or "application/json",
                    body=bytes(first.response_body),
                )
            )
        if first.created_at < now - IN_FLIGHT_TIMEOUT:
            SignedRequest.objects.filter(pk=first.pk, created_at=first.created_at).delete()
            continue
        break
    raise DomainError(
        "idempotency_conflict",
        "This signed request is already being processed; its outcome follows shortly.",
    )


def signed_request_outcome_record(
    *, claim_id: int, status: int, content_type: str, body: bytes
) -> None:
    """Keep the outcome of a claimed request for its repeats; forget it when the outcome
    says "try again" (409, 429, 503, 5xx), so that a retry runs."""
    claims = SignedRequest.objects.filter(pk=claim_id)
    if status in RETRYABLE_STATUSES or status >= 500:
        claims.delete()
        return
    claims.update(
        state=SignedRequest.State.DONE,
        response_status=status,
        response_content_type=content_type[:100],
        response_body=body,
    )


def signed_request_forget(*, claim_id: int) -> None:
    """The request failed before it had an outcome: a copy of it may run again."""
    SignedRequest.objects.filter(pk=claim_id).delete()


def signed_requests_purge(*, now: dt.datetime | None = None) -> int:
    """Delete the claims whose signature can no longer be accepted; returns how many."""
    now = now or timezone.now()
    deleted, _ = SignedRequest.objects.filter(expires_at__lt=now).delete()
    return deleted
