"""Idempotency-Key support for every POST under /api/ (contract 1.3).

Modelled on pretix's middleware: the key is scoped to the caller and the path, the first
request claims the key by inserting a row (a unique constraint, not a Python check,
decides the winner), concurrent duplicates get 409 while it runs, later ones get the
stored response replayed, and responses that say "try again" (409, 429, 503, 5xx) are
forgotten so that a retry really retries.
"""

from __future__ import annotations

import hashlib
from datetime import timedelta

from django.conf import settings
from django.db import IntegrityError, transaction
from django.http import HttpRequest, HttpResponse
from django.utils import timezone

from api.callers import client_ip, presented_api_key, signer_slug
from api.models import IdempotencyRecord
from api.problems import Problem, problem_response

HEADER = "HTTP_IDEMPOTENCY_KEY"
FORGET_STATUSES = {401, 409, 429, 503}
# A claim left in flight this long belongs to a request that died; it may be taken over.
IN_FLIGHT_TIMEOUT = timedelta(minutes=5)


def _digest(*parts: str | bytes) -> str:
    sha = hashlib.sha256()
    for part in parts:
        sha.update(part if isinstance(part, bytes) else part.encode())
        sha.update(b"\x00")
    return sha.hexdigest()


def caller_fingerprint(request: HttpRequest) -> str:
    key = presented_api_key(request)
    if key:
        return "key:" + _digest(key)
    signer = signer_slug(request)
    if signer:
        return "signer:" + signer
    return "ip:" + client_ip(request)


class IdempotencyMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if not request.path.startswith("/api/") or request.method not in {"POST", "PUT", "PATCH"}:
            return self.get_response(request)
        # Reading the body here enforces DATA_UPLOAD_MAX_MEMORY_SIZE for every API call
        # (DRF streams the body and would otherwise skip Django's size check).
        body = request.body
        key = request.META.get(HEADER)
        if key is None:
            return self.get_response(request)
        if not 1 <= len(key) <= 255:
            return problem_response(
                Problem(
                    400,
                    "invalid_input",
                    "Idempotency-Key must be 1 to 255 characters.",
                    errors={"Idempotency-Key": ["Must be 1 to 255 characters."]},
                )
            )
        scope = _digest(caller_fingerprint(request), request.method, request.path, key)
        request_hash = _digest(request.META.get("QUERY_STRING", ""), body)

        record, replay = self._claim(scope, request_hash, request)
        if replay is not None:
            return replay

        try:
            response = self.get_response(request)
        except BaseException:
            IdempotencyRecord.objects.filter(pk=record.pk).delete()
            raise
        if response.status_code in FORGET_STATUSES or response.status_code >= 500:
            IdempotencyRecord.objects.filter(pk=record.pk).delete()
            return response
        content = response.content if not response.streaming else b""
        IdempotencyRecord.objects.filter(pk=record.pk).update(
            state=IdempotencyRecord.State.DONE,
            response_status=response.status_code,
            response_content_type=response.get("Content-Type", ""),
            response_body=content,
            response_location=response.get("Location", ""),
        )
        return response

    def _claim(self, scope: str, request_hash: str, request: HttpRequest):
        """Insert the in-flight row, or decide what an earlier use of the key means."""
        for _ in range(3):
            try:
                with transaction.atomic():
                    record = IdempotencyRecord.objects.create(
                        scope=scope,
                        request_hash=request_hash,
                        method=request.method,
                        path=request.path[:255],
                    )
                return record, None
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
                return None, problem_response(
                    Problem(
                        422,
                        "idempotency_key_reuse",
                        "This Idempotency-Key was already used with a different request body.",
                    )
                )
            if existing.state == IdempotencyRecord.State.IN_FLIGHT:
                return None, problem_response(
                    Problem(
                        409,
                        "idempotency_conflict",
                        "A request with this Idempotency-Key is still being processed.",
                        headers={"Retry-After": "1"},
                    )
                )
            return None, self._replay(existing)
        return None, problem_response(
            Problem(409, "idempotency_conflict", "Could not claim the Idempotency-Key; retry.")
        )

    @staticmethod
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


def idempotency_records_purge() -> int:
    """Delete records past the retention window; returns how many went."""
    cutoff = timezone.now() - timedelta(hours=settings.IDEMPOTENCY_RETENTION_HOURS)
    deleted, _ = IdempotencyRecord.objects.filter(created_at__lt=cutoff).delete()
    return deleted
