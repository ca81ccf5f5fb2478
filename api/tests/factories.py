"""Factories for the shared HTTP edge's records: Idempotency-Key uses (contract 1.3)."""

from __future__ import annotations

import factory
from factory.django import DjangoModelFactory

from api.models import IdempotencyRecord


class IdempotencyRecordFactory(DjangoModelFactory):
    """A key whose first request is still running (``in_flight``); give ``scope`` and
    ``request_hash`` as api.idempotency digests them to meet a real request."""

    class Meta:
        model = IdempotencyRecord

    scope = factory.Sequence(lambda n: f"{n:064x}")
    request_hash = factory.Sequence(lambda n: f"{n:064x}")
    method = "POST"
    path = "/api/probe"
