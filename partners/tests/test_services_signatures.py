"""partners.services.signatures: a signed request is good once (contract 1.2)."""

from __future__ import annotations

import datetime as dt

import pytest
from django.utils import timezone

from core.errors import DomainError
from partners.models import SignedRequest
from partners.services.signatures import (
    SignedRequestRepeated,
    signed_request_claim,
    signed_request_forget,
    signed_request_outcome_record,
    signed_requests_purge,
)

pytestmark = pytest.mark.django_db


def claim(account, signature="ab" * 32, signed_at=None, now=None):
    return signed_request_claim(
        account=account,
        signature=signature,
        signed_at=signed_at,
        method="POST",
        path="/api/public/v1/jobs",
        now=now,
    )


def test_a_repeat_gets_the_first_outcome(make_account):
    account = make_account("partner")
    first = claim(account)
    signed_request_outcome_record(
        claim_id=first.pk, status=207, content_type="application/json", body=b'{"a": 1}'
    )

    with pytest.raises(SignedRequestRepeated) as repeat:
        claim(account)

    assert (repeat.value.outcome.status, repeat.value.outcome.body) == (207, b'{"a": 1}')
    assert SignedRequest.objects.count() == 1


@pytest.mark.parametrize("status", [400, 403, 404, 422, 499])
def test_a_refusal_is_an_outcome_a_repeat_gets_too(make_account, status):
    account = make_account("partner")
    first = claim(account)
    signed_request_outcome_record(
        claim_id=first.pk, status=status, content_type="application/problem+json", body=b"{}"
    )

    with pytest.raises(SignedRequestRepeated) as repeat:
        claim(account)

    assert repeat.value.outcome.status == status


def test_a_repeat_while_the_first_runs_is_a_conflict(make_account):
    account = make_account("partner")
    claim(account)
    with pytest.raises(DomainError) as conflict:
        claim(account)
    assert conflict.value.code == "idempotency_conflict"


def test_a_claim_left_by_a_request_that_died_is_taken_over(make_account):
    account = make_account("partner")
    first = claim(account, now=timezone.now() - dt.timedelta(minutes=10))
    second = claim(account)
    assert second.pk != first.pk
    assert SignedRequest.objects.count() == 1


@pytest.mark.parametrize("status", [409, 429, 503, 500])
def test_try_again_outcomes_are_forgotten(make_account, status):
    account = make_account("partner")
    first = claim(account)
    signed_request_outcome_record(claim_id=first.pk, status=status, content_type="", body=b"")
    assert claim(account).pk != first.pk


def test_a_forgotten_claim_may_run_again(make_account):
    account = make_account("partner")
    signed_request_forget(claim_id=claim(account).pk)
    assert claim(account) is not None


def test_the_same_signature_of_two_accounts_is_two_requests(make_account):
    claim(make_account("partner", name="One"))
    claim(make_account("partner", name="Two"))
    assert SignedRequest.objects.count() == 2


def test_purge_drops_only_signatures_past_their_window(make_account):
    account = make_account("partner")
    now = timezone.now()
    old = claim(account, "01" * 32, signed_at=now - dt.timedelta(seconds=301))
    live = claim(account, "02" * 32, signed_at=now)
    untimed = claim(account, "03" * 32)

    assert signed_requests_purge(now=now) == 1

    remaining = set(SignedRequest.objects.values_list("pk", flat=True))
    assert remaining == {live.pk, untimed.pk}
    assert old.pk not in remaining
