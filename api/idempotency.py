"""Idempotency-Key support for every POST of the API views (contract 1.3).

Modelled on pretix's middleware, but run inside the view, after authentication: the key is
scoped to the caller that authenticated (the account whose key or signature was verified,
the driver of a driver token, else the client IP) and the path, so nothing stored for a
caller is ever replayed to a request that has not proved to be that caller, and a request
that fails authentication learns nothing about the keys used (issue 13: the scope used to
come from the unverified ``x-partner`` header).

The first request claims the key by inserting a row (a unique constraint, not a Python
check, decides the winner), concurrent duplicates get 409 while it runs, later ones get
the stored response replayed, and responses that say "try again" (401, 409, 429, 503,
5xx) are forgotten so that a retry really retries. Records older than the retention are
purged by a periodic task (``api.tasks.idempotency_records_purge``).
"""

from __future__ import annotations

import hashlib
from datetime import timedelta

from django.conf import settings
from django.db import IntegrityError, transaction
from django.http import HttpResponse
from django.utils import timezone

from api.callers import client_ip
from api.models import IdempotencyRecord
from api.principals import request_account
from api.problems import Problem

HEADER = "HTTP_IDEMPOTENCY_KEY"
METHODS = {"POST", "PUT", "PATCH"}
FORGET_STATUSES = {401, 409, 429, 503}
# A claim left in flight this long belongs to a request that died; it may be taken over.
IN_FLIGHT_TIMEOUT = timedelta(minutes=5)


class IdempotentReplay(Exception):  # noqa: N818 (a signal carrying a response, not an error)
    """The stored response of an earlier request with the same key, to be sent again."""

    def __init__(self, response: HttpResponse) -> None:
        super().__init__("idempotent replay")
        self.response = response


def _digest(*parts: str | bytes) -> str:
    sha = hashlib.sha256()
    for part in parts:
        sha.update(part if isinstance(part, bytes) else part.encode("utf-8", "surrogatepass"))
        sha.update(b"\x00")
    return sha.hexdigest()


def idempotency_claim(request, *, caller: str) -> int | None:
    """Claim the request's Idempotency-Key for ``caller``; the claimed record's id, or None
    when no key was sent.

    Raises IdempotentReplay with the first response when the key was used with the same
    body, or a Problem: 422 ``idempotency_key_reuse`` (another body), 409
    ``idempotency_conflict`` (the first request is still running), 400 (a bad key).
    """
    key = request.META.get(HEADER)
    if key is None or request.method not in METHODS:
        return None
    if not 1 <= len(key) <= 255:
        raise Problem(
            400,
            "invalid_input",
            "Idempotency-Key must be 1 to 255 characters.",
            errors={"Idempotency-Key": ["Must be 1 to 255 characters."]},
        )
    scope = _digest(caller, request.method, request.path, key)
    request_hash = _digest(request.META.get("QUERY_STRING", ""), request.body)
    for _ in range(3):
        try:
            with transaction.atomic():
                record = IdempotencyRecord.objects.create(
                    scope=scope,
                    request_hash=request_hash,
                    method=request.method,
                    path=request.path[:255],
                )
            return record.pk
        except IntegrityError:
            existing = IdempotencyRecord.objects.filter(scope=scope).first()
        if existing is None:
            continue  # deleted between our insert and read: claim again
        now = timezone.now()
        retention = timedelta(hours=settings.IDEMPOTENCY_RETENTION_HOURS)
        stale_claim = (
            existing.state == IdempotencyRecord.State.IN_FLIGHT
            and existing.created_at < now - IN_FLIGHT_TIMEOUT
        )
        if existing.created_at < now - retention or stale_claim:
            IdempotencyRecord.objects.filter(
                pk=existing.pk, created_at=existing.created_at
            ).delete()
            continue
        if existing.request_hash != request_hash:
            raise Problem(
                422,
                "idempotency_key_reuse",
                "This Idempotency-Key was already used with a different request body.",
            )
        if existing.state == IdempotencyRecord.State.IN_FLIGHT:
            raise Problem(
                409,
                "idempotency_conflict",
                "A request with this Idempotency-Key is still being processed.",
                headers={"Retry-After": "1"},
            )
        raise IdempotentReplay(_replay(existing))
    raise Problem(
        409,
        "idempotency_conflict",
        "Could not claim the Idempotency-Key; retry.",
        headers={"Retry-After": "1"},
    )


def idempotency_settle(record_id: int, response: HttpResponse) -> None:
    """Keep the response of a claimed key for replay, or forget the key when the response
    invites a retry."""
    if response.status_code in FORGET_STATUSES or response.status_code >= 500:
        idempotency_forget(record_id)
        return
    content = response.content if not response.streaming else b""
    IdempotencyRecord.objects.filter(pk=record_id).update(
        state=IdempotencyRecord.State.DONE,
        response_status=response.status_code,
        response_content_type=response.get("Content-Type", ""),
        response_body=content,
        response_location=response.get("Location", ""),
    )


def idempotency_forget(record_id: int) -> None:
    IdempotencyRecord.objects.filter(pk=record_id).delete()


def _replay(record: IdempotencyRecord) -> HttpResponse:
    response = HttpResponse(
        bytes(record.response_body),
        status=record.response_status,
        content_type=record.response_content_type or "application/json",
    )
    if record.response_location:
        response["Location"] = record.response_location
    response["Idempotent-Replayed"] = "true"
    return response


class IdempotentViewMixin:
    """For DRF views: call :meth:`idempotency_begin` at the end of ``initial()``, once the
    caller has authenticated; the response is kept (or the key forgotten) as it leaves."""

    _idempotency_record: int | None = None

    def idempotency_caller(self, request) -> str:
        """Who the key belongs to: the verified account, else the client IP."""
        account = request_account(request)
        if account is not None:
            return f"account:{account.pk}"
        return f"ip:{client_ip(request)}"

    def idempotency_begin(self, request) -> None:
        self._idempotency_record = idempotency_claim(
            request, caller=self.idempotency_caller(request)
        )

    def handle_exception(self, exc):
        if isinstance(exc, IdempotentReplay):
            return exc.response
        try:
            return super().handle_exception(exc)
        except BaseException:
            self._idempotency_end(None)
            raise

    def finalize_response(self, request, response, *args, **kwargs):
        response = super().finalize_response(request, response, *args, **kwargs)
        if self._idempotency_record is not None and hasattr(response, "render"):
            response.render()
        self._idempotency_end(response)
        return response

    def _idempotency_end(self, response) -> None:
        record, self._idempotency_record = self._idempotency_record, None
        if record is None:
            return
        if response is None:
            idempotency_forget(record)
        else:
            idempotency_settle(record, response)


def idempotency_records_purge() -> int:
    """Delete records past the retention window; returns how many went."""
    cutoff = timezone.now() - timedelta(hours=settings.IDEMPOTENCY_RETENTION_HOURS)
    deleted, _ = IdempotencyRecord.objects.filter(created_at__lt=cutoff).delete()
    return deleted
