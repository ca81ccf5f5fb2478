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


def test_a_claim_keeps_when_and_what_was_signed(make_account):
    account = make_account("partner")
    signed_at = timezone.now().replace(microsecond=0)
    stored = signed_request_claim(
        account=account,
        signature="cd" * 32,
        signed_at=signed_at,
        method="PROPFINDX",
        path="/api/" + "p" * 300,
    )
    stored.refresh_from_db()
    assert stored.signed_at == signed_at
    assert stored.expires_at == signed_at + dt.timedelta(seconds=300)
    # cut to the columns' widths
    assert (stored.method, stored.path) == ("PROPFIND", ("/api/" + "p" * 300)[:255])


def test_a_repeat_of_an_outcome_without_a_content_type_is_json(make_account):
    account = make_account("partner")
    first = claim(account)
    signed_request_outcome_record(claim_id=first.pk, status=200, content_type="", body=b"{}")
    with pytest.raises(SignedRequestRepeated) as repeat:
        claim(account)
    assert repeat.value.outcome.content_type == "application/json"
    assert str(repeat.value) == "signed request repeated (first outcome 200)"


def test_a_long_content_type_is_kept_to_its_column(make_account):
    account = make_account("partner")
    first = claim(account)
    long_type = "application/json; profile=" + "x" * 150
    signed_request_outcome_record(claim_id=first.pk, status=200, content_type=long_type, body=b"")
    assert SignedRequest.objects.get(pk=first.pk).response_content_type == long_type[:100]


def test_a_repeat_is_matched_by_its_own_signature_not_the_accounts_last(make_account):
    # Given one request of the account done, and another still running
    account = make_account("partner")
    done = claim(account, signature="ab" * 32)
    signed_request_outcome_record(claim_id=done.pk, status=201, content_type="", body=b"")
    claim(account, signature="ef" * 32)
    # When the running one comes again, it is a conflict, not the other's outcome
    with pytest.raises(DomainError) as conflict:
        claim(account, signature="ef" * 32)
    assert conflict.value.code == "idempotency_conflict"
    assert conflict.value.detail == (
        "This signed request is already being processed; its outcome follows shortly."
    )


def test_a_claim_in_flight_for_exactly_the_timeout_is_still_running(make_account):
    account = make_account("partner")
    now = timezone.now()
    claim(account, now=now - dt.timedelta(minutes=5))
    with pytest.raises(DomainError) as conflict:
        claim(account, now=now)
    assert conflict.value.code == "idempotency_conflict"


def test_taking_over_a_dead_claim_leaves_other_claims_alone(make_account):
    one, two = make_account("partner", name="One"), make_account("partner", name="Two")
    long_ago = timezone.now() - dt.timedelta(minutes=10)
    claim(one, now=long_ago)
    others = claim(two, now=long_ago)
    claim(one)
    assert SignedRequest.objects.filter(pk=others.pk).exists()


def test_purge_without_a_time_uses_the_clock(make_account):
    account = make_account("partner")
    now = timezone.now()
    claim(account, signature="01" * 32, signed_at=now - dt.timedelta(minutes=10))
    kept = claim(account, signature="02" * 32, signed_at=now)
    # at a time given, before either window ended, nothing goes; by the clock, one has
    assert signed_requests_purge(now=now - dt.timedelta(minutes=20)) == 0
    assert signed_requests_purge() == 1
    assert list(SignedRequest.objects.values_list("pk", flat=True)) == [kept.pk]


def test_a_claim_lost_three_times_to_rows_that_vanish_is_a_conflict(make_account, monkeypatch):
    """Each insert loses to a copy's row that is forgotten before it is read back: the claim
    is tried again, three times in all, then the caller is told to retry."""
    from django.db import IntegrityError

    inserts = []

    def lose(**fields):
        inserts.append(fields)
        raise IntegrityError("duplicate key")

    monkeypatch.setattr(SignedRequest.objects, "create", lose)
    with pytest.raises(DomainError) as conflict:
        claim(make_account("partner"))
    assert len(inserts) == 3
    assert conflict.value.code == "idempotency_conflict"
