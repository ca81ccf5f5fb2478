"""Issue 13 findings on the partner, operator, supplier and driver doors: a hostile or
careless caller gets a clear 4xx and changes nothing (contract 1, 1.2, 3, 4, 6)."""

from __future__ import annotations

import json
import time
from datetime import timedelta
from decimal import Decimal

import pytest
from django.contrib.auth import get_user_model
from django.utils import timezone

from api.tests.assertions import assert_problem
from bookings.models import Booking, BookingStatus, PaymentRecord
from core.testing.concurrency import race
from drivers.tests.factories import fleet_driver
from partners.models import OperatorUser, SignedRequest
from partners.tests.factories import hmac_hex, partner_job

pytestmark = pytest.mark.django_db

JOBS = "/api/public/v1/jobs"
HOOK = "/api/public/hooks/corptravel-booking"


@pytest.fixture
def partner(make_account):
    return make_account("partner", name="Acme Rides", slug="acme")


@pytest.fixture
def supplier(make_account):
    return make_account("supplier", name="Corporate Travel", slug="corptravel")


def signed_post(client, url, account, payload, *, timestamp: str | None = None, body=None):
    body = body if body is not None else json.dumps(payload).encode()
    headers = {"HTTP_X_TIMESTAMP": timestamp} if timestamp is not None else {}
    return client.post(
        url,
        data=body,
        content_type="application/json",
        HTTP_X_PARTNER=account.slug,
        HTTP_X_SIGNATURE=hmac_hex(account.signing_secret, body, timestamp),
        **headers,
    )


def now_ts(offset: int = 0) -> str:
    return str(int(time.time()) + offset)


# --- malformed signature headers: 401, never 5xx ---------------------------------------------


@pytest.mark.parametrize(
    "signature",
    ["é" * 64, "sha256=" + "ü" * 64, "\u00ff" * 10, "0" * 63 + "\u2603", "zz" * 32],
)
@pytest.mark.parametrize("url", [JOBS, HOOK])
def test_a_non_ascii_signature_is_401(client, partner, supplier, url, signature):
    """Issue 13: "a non-ASCII `x-signature` (TypeError in compare_digest)"."""
    response = client.post(
        url,
        data=json.dumps(partner_job()),
        content_type="application/json",
        HTTP_X_PARTNER=partner.slug,
        HTTP_X_SIGNATURE=signature,
    )
    assert_problem(response, 401, "unauthenticated")
    assert Booking.objects.count() == 0


@pytest.mark.parametrize("timestamp", ["9" * 400, "-" + "9" * 400, "1e400", "١٧٠٠٠٠٠٠٠٠", ""])
def test_an_absurd_timestamp_is_401(client, partner, timestamp):
    """Issue 13: "a 400-digit `x-timestamp` (OverflowError)"."""
    body = json.dumps(partner_job()).encode()
    response = client.post(
        JOBS,
        data=body,
        content_type="application/json",
        HTTP_X_PARTNER=partner.slug,
        HTTP_X_TIMESTAMP=timestamp,
        HTTP_X_SIGNATURE=hmac_hex(partner.signing_secret, body, timestamp),
    )
    assert_problem(response, 401, "unauthenticated")
    assert Booking.objects.count() == 0


# --- a signed request is good once (contract 1.2) ---------------------------------------------


def test_a_replayed_signed_amendment_does_not_undo_a_newer_one(client, partner):
    """Issue 13: "A captured signed amendment, sent again later, is applied again and undoes
    the newer one." Contract 1.2: a repeat returns the first outcome and changes nothing."""
    signed_post(client, JOBS, partner, partner_job(jobRef="AM-1", passengers=1))
    ts = now_ts()
    first_amend = {"jobRef": "AM-1", "action": "amend", "notes": "Gate 3"}
    first = signed_post(client, JOBS, partner, first_amend, timestamp=ts)
    newer = signed_post(
        client, JOBS, partner, {"jobRef": "AM-1", "action": "amend", "notes": "Gate 7"}
    )
    assert first.json()["results"][0]["outcome"] == "amended"
    assert newer.json()["results"][0]["outcome"] == "amended"
    booking = Booking.objects.get(job_ref="AM-1")
    sequence = booking.sequence

    replay = signed_post(client, JOBS, partner, first_amend, timestamp=ts)

    assert replay.status_code == first.status_code
    assert replay.json() == first.json()
    assert replay["Idempotent-Replayed"] == "true"
    booking.refresh_from_db()
    assert booking.notes == "Gate 7"
    assert booking.sequence == sequence


def test_a_replayed_request_without_timestamp_is_answered_with_its_first_outcome(client, partner):
    """Issue 13: "A captured signed amendment, sent again later, is applied again"."""
    job = partner_job(jobRef="AM-2")
    first = signed_post(client, JOBS, partner, job)
    Booking.objects.filter(job_ref="AM-2").update(notes="changed since")

    replay = signed_post(client, JOBS, partner, job)

    assert (replay.status_code, replay.json()) == (first.status_code, first.json())
    assert Booking.objects.get(job_ref="AM-2").notes == "changed since"
    assert Booking.objects.filter(job_ref="AM-2").count() == 1


def test_a_replayed_status_report_changes_nothing(client, partner):
    """Issue 13: a captured signed request "sent again later, is applied again"."""
    signed_post(client, JOBS, partner, partner_job(jobRef="ST-1"))
    url = "/api/public/hooks/booking-status"
    ts = now_ts()
    report = {"jobRef": "ST-1", "status": "accepted", "occurredAt": "2026-11-22T10:00:00Z"}
    first = signed_post(client, url, partner, report, timestamp=ts)
    signed_post(
        client,
        url,
        partner,
        {"jobRef": "ST-1", "status": "confirmed", "occurredAt": "2026-11-22T10:01:00Z"},
    )

    replay = signed_post(client, url, partner, report, timestamp=ts)

    assert replay.json() == first.json()
    assert Booking.objects.get(job_ref="ST-1").status == BookingStatus.CONFIRMED


def test_the_reconciliation_get_needs_a_signature_over_method_and_path(client, partner):
    """Issue 13: "The reconciliation GET's signature over an empty body is the same for
    every jobRef, forever." Contract 1.2: signed over "{timestamp}.{METHOD} {path}"."""
    signed_post(client, JOBS, partner, partner_job(jobRef="R-1"))
    signed_post(client, JOBS, partner, partner_job(jobRef="R-2"))
    empty_body_signature = hmac_hex(partner.signing_secret, b"")

    old_style = client.get(
        f"{JOBS}/R-1", HTTP_X_PARTNER=partner.slug, HTTP_X_SIGNATURE=empty_body_signature
    )
    ts = now_ts()
    for_r1 = hmac_hex(partner.signing_secret, f"GET {JOBS}/R-1".encode(), ts)
    r1 = client.get(
        f"{JOBS}/R-1", HTTP_X_PARTNER=partner.slug, HTTP_X_TIMESTAMP=ts, HTTP_X_SIGNATURE=for_r1
    )
    r2_with_r1_signature = client.get(
        f"{JOBS}/R-2", HTTP_X_PARTNER=partner.slug, HTTP_X_TIMESTAMP=ts, HTTP_X_SIGNATURE=for_r1
    )
    stale_ts = now_ts(-301)
    stale = client.get(
        f"{JOBS}/R-1",
        HTTP_X_PARTNER=partner.slug,
        HTTP_X_TIMESTAMP=stale_ts,
        HTTP_X_SIGNATURE=hmac_hex(partner.signing_secret, f"GET {JOBS}/R-1".encode(), stale_ts),
    )

    assert_problem(old_style, 401, "unauthenticated")
    assert r1.status_code == 200
    assert r1.json()["jobRef"] == "R-1"
    assert_problem(r2_with_r1_signature, 401, "unauthenticated")
    assert_problem(stale, 401, "unauthenticated")


def test_expired_signatures_are_purged_and_untimed_ones_kept(client, partner):
    """Contract 1.2: claims live as long as the signature could be accepted."""
    from partners.tasks import signed_requests_expired_purge

    signed_post(client, JOBS, partner, partner_job(), timestamp=now_ts())
    signed_post(client, JOBS, partner, partner_job())
    assert SignedRequest.objects.count() == 2
    SignedRequest.objects.filter(expires_at__isnull=False).update(
        expires_at=timezone.now() - timedelta(seconds=1)
    )

    assert signed_requests_expired_purge() == 1

    [kept] = SignedRequest.objects.all()
    assert kept.expires_at is None


# --- the supplier's header carries an API key (contract 1.2, 4.2) ------------------------------


def test_the_supplier_header_refuses_the_signing_secret(client, supplier):
    """Issue 13: "A supplier's `x-{slug}-secret` header carries the signing secret, which
    also signs webhooks"."""
    with_secret = client.post(
        HOOK,
        data=json.dumps(partner_job(jobRef="SUP-1")),
        content_type="application/json",
        HTTP_X_CORPTRAVEL_SECRET=supplier.signing_secret,
    )
    with_key = client.post(
        HOOK,
        data=json.dumps(partner_job(jobRef="SUP-2")),
        content_type="application/json",
        HTTP_X_CORPTRAVEL_SECRET=supplier.raw_key,
    )

    assert_problem(with_secret, 401, "unauthenticated")
    assert with_key.status_code == 200
    assert list(Booking.objects.values_list("job_ref", flat=True)) == ["SUP-2"]


def test_another_accounts_api_key_is_no_supplier_secret(client, supplier, partner):
    response = client.post(
        HOOK,
        data=json.dumps(partner_job()),
        content_type="application/json",
        HTTP_X_CORPTRAVEL_SECRET=partner.raw_key,
    )
    assert_problem(response, 401, "unauthenticated")


# --- careless intake bodies: that job is rejected, the batch goes on ---------------------------


def test_a_huge_fare_rejects_only_its_job(api_client, partner):
    """Issue 13: "intake `fare: 1e30` (decimal.InvalidOperation, and the whole batch
    fails)"."""
    api_client.credentials(HTTP_X_API_KEY=partner.raw_key)
    body = (
        "["
        + json.dumps(partner_job(jobRef="BIG-1"))[:-1]
        + ', "fare": 1e30}, '
        + json.dumps(partner_job(jobRef="OK-1"))
        + "]"
    )

    response = api_client.post(JOBS, data=body, content_type="application/json")

    assert response.status_code == 207
    big, ok = response.json()["results"]
    assert (big["outcome"], big["code"], list(big["errors"])) == (
        "rejected",
        "invalid_input",
        ["fare"],
    )
    assert ok["outcome"] == "created"
    assert list(Booking.objects.values_list("job_ref", flat=True)) == ["OK-1"]


@pytest.mark.parametrize("fare", [0, "0.001", 100000])
def test_a_fare_must_be_more_than_0_and_at_most_99999_99(api_client, partner, fare):
    """Contract 3: "A fare is more than 0 and at most 99999.99"."""
    api_client.credentials(HTTP_X_API_KEY=partner.raw_key)
    response = api_client.post(
        JOBS, data=json.dumps([partner_job(fare=fare)]), content_type="application/json"
    )
    assert response.status_code == 207
    assert "fare" in response.json()["results"][0]["errors"]
    assert Booking.objects.count() == 0


def test_a_lone_surrogate_in_a_rejected_job_ref_is_echoed_safely(api_client, partner):
    """Issue 13: "a lone surrogate in a rejected job's `jobRef`, echoed into the 207
    (UnicodeEncodeError)"."""
    api_client.credentials(HTTP_X_API_KEY=partner.raw_key)
    bad = json.dumps(partner_job(passengers=99))[:-1] + ', "jobRef": "X-\\ud800"}'
    notes = json.dumps(partner_job(jobRef="N-1"))[:-1] + ', "notes": "door \\udfff code"}'
    body = "[" + bad + ", " + notes + ", " + json.dumps(partner_job(jobRef="OK-2")) + "]"

    response = api_client.post(JOBS, data=body, content_type="application/json")

    assert response.status_code == 207
    first, second, third = response.json()["results"]
    assert first["outcome"] == "rejected"
    assert first["jobRef"].startswith("X-")
    assert "\ud800" not in first["jobRef"]
    assert (second["outcome"], list(second["errors"])) == ("rejected", ["notes"])
    assert third["outcome"] == "created"
    assert Booking.objects.count() == 1


# --- the operator assign form (issue 13: open redirect) ----------------------------------------


@pytest.fixture
def operator_login(client, make_account):
    operator = make_account("operator", name="Leeds Cars", approved=True)
    user = get_user_model().objects.create_user("dispatcher", password="pw-123456!")
    OperatorUser.objects.create(user=user, account=operator)
    client.force_login(user)
    client.operator = operator
    return client


@pytest.mark.urls("partners.tests.urls")
@pytest.mark.parametrize(
    "next_url", ["https://evil.example/", "//evil.example/", "/\\evil.example/", "http:evil"]
)
@pytest.mark.parametrize("with_driver", [True, False])
def test_the_assign_form_never_redirects_off_site(operator_login, next_url, with_driver):
    """Issue 13: "an open redirect through the operator assign form's `next`"."""
    from bookings.references import reference_generate

    operator = operator_login.operator
    job = Booking.objects.create(
        reference=reference_generate(),
        source="operator",
        account=operator,
        job_ref="ASSIGN-1",
        dispatch_queue="operator",
        pickup="Leeds",
        dropoff="York",
        fare=30,
        pickup_time=timezone.now() + timedelta(hours=3),
    )
    form = {"next": next_url}
    if with_driver:
        form["driver"] = fleet_driver(operator=operator).pk

    response = operator_login.post(f"/operator/jobs/{job.reference}/assign", form)

    assert response.status_code == 302
    assert response["Location"] == "/operator/"


@pytest.mark.urls("partners.tests.urls")
def test_the_assign_form_still_returns_to_a_page_of_this_site(operator_login):
    response = operator_login.post(
        "/operator/jobs/DTD-NOPE0000/assign", {"next": "/operator/calendar/"}
    )
    assert response.status_code == 404  # another operator's or no job: as if it did not exist


# --- driver settlements (issue 13) -------------------------------------------------------------


@pytest.fixture
def driver_job(make_account):
    from bookings.references import reference_generate
    from drivers.tests.factories import UserFactory

    driver = fleet_driver()
    driver.user = UserFactory()
    driver.save(update_fields=["user"])
    booking = Booking.objects.create(
        reference=reference_generate(),
        source="api",
        pickup="Leeds",
        dropoff="York",
        fare=30,
        pickup_time=timezone.now() + timedelta(hours=1),
        status=BookingStatus.ACCEPTED,
        driver=driver,
        vehicle=driver.vehicles.get(),
    )
    from rest_framework.authtoken.models import Token
    from rest_framework.test import APIClient

    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=driver.user).key}")
    return client, booking


def settle(client, booking, amount):
    return client.post(
        f"/api/public/v1/driver/jobs/{booking.reference}/settlement",
        {"amountGBP": amount, "method": "cash"},
        format="json",
    )


@pytest.mark.parametrize(
    "status",
    [
        BookingStatus.ACCEPTED,
        BookingStatus.EN_ROUTE,
        BookingStatus.CANCELLED,
        BookingStatus.NO_SHOW,
    ],
)
def test_a_settlement_before_the_ride_or_after_a_cancellation_is_409(driver_job, status):
    """Issue 13: "settlements of any amount in any state"."""
    client, booking = driver_job
    Booking.objects.filter(pk=booking.pk).update(status=status)
    assert_problem(settle(client, booking, 30), 409, "not_settleable")
    assert PaymentRecord.objects.count() == 0


@pytest.mark.parametrize("amount", [100000, "99999999.99", 0, -1])
def test_a_settlement_out_of_range_is_400(driver_job, amount):
    """Issue 13: "settlements of any amount in any state"."""
    client, booking = driver_job
    Booking.objects.filter(pk=booking.pk).update(status=BookingStatus.COMPLETED)
    body = assert_problem(settle(client, booking, amount), 400, "invalid_input")
    assert "amountGBP" in body["errors"]
    assert PaymentRecord.objects.count() == 0


@pytest.mark.parametrize("status", [BookingStatus.ON_BOARD, BookingStatus.COMPLETED])
def test_a_settlement_on_board_or_completed_is_recorded(driver_job, status):
    client, booking = driver_job
    Booking.objects.filter(pk=booking.pk).update(status=status)
    response = settle(client, booking, "30.00")
    assert response.status_code == 201
    assert PaymentRecord.objects.get().amount == Decimal("30.00")


def test_settlements_add_up_to_at_most_the_fare(driver_job):
    """Finding: "Settlements have no cap: three `amountGBP: 99999.99` records on a £39.20
    fare are all 201"."""
    client, booking = driver_job
    Booking.objects.filter(pk=booking.pk).update(status=BookingStatus.COMPLETED, fare="39.20")
    for _ in range(3):
        assert_problem(settle(client, booking, "99999.99"), 409, "settlement_exceeds_fare")
    assert settle(client, booking, "20.00").status_code == 201
    body = assert_problem(settle(client, booking, "19.21"), 409, "settlement_exceeds_fare")
    assert (body["fareDueGBP"], body["settledGBP"]) == (39.2, 20.0)
    assert settle(client, booking, "19.20").status_code == 201
    assert sum(r.amount for r in PaymentRecord.objects.all()) == Decimal("39.20")


def test_a_processor_fee_above_the_amount_paid_is_409(driver_job):
    """Issue 35: a ``processorFeeGBP`` of 999999.99 on a £0.50 card payment was 201, and the
    week's invoicing then overflowed for everyone (contract 6)."""
    client, booking = driver_job
    Booking.objects.filter(pk=booking.pk).update(status=BookingStatus.COMPLETED, fare="39.20")
    url = f"/api/public/v1/driver/jobs/{booking.reference}/settlement"

    body = assert_problem(
        client.post(
            url,
            {"amountGBP": "0.50", "method": "card", "processorFeeGBP": "999999.99"},
            format="json",
        ),
        409,
        "settlement_exceeds_fare",
    )
    assert (body["amountGBP"], body["processorFeeGBP"]) == (0.5, 999999.99)
    assert PaymentRecord.objects.count() == 0

    fair = {"amountGBP": "0.50", "method": "card", "processorFeeGBP": "0.50"}
    assert client.post(url, fair, format="json").status_code == 201


def test_the_cap_is_net_of_refunds(driver_job):
    """Issue 37: the "net of refunds" part of the cap was untested. Fare 30, settled 30,
    10 refunded: 10 more may be settled, and not a penny beyond."""
    from bookings.services import payment_record_append

    client, booking = driver_job
    Booking.objects.filter(pk=booking.pk).update(status=BookingStatus.COMPLETED, fare="30.00")
    assert settle(client, booking, "30.00").status_code == 201
    assert_problem(settle(client, booking, "0.01"), 409, "settlement_exceeds_fare")
    payment_record_append(
        booking=booking, amount=Decimal("10.00"), method="cash", kind=PaymentRecord.Kind.REFUND
    )
    body = assert_problem(settle(client, booking, "10.01"), 409, "settlement_exceeds_fare")
    assert (body["fareDueGBP"], body["settledGBP"]) == (30.0, 20.0)
    assert settle(client, booking, "10.00").status_code == 201
    assert_problem(settle(client, booking, "0.01"), 409, "settlement_exceeds_fare")
    payments = PaymentRecord.objects.filter(kind=PaymentRecord.Kind.PAYMENT)
    assert sorted(r.amount for r in payments) == [Decimal("10.00"), Decimal("30.00")]


# --- one set of booking policies for intake (issue 12) ---------------------------------------


def test_a_sender_whose_pricing_was_withdrawn_gets_fare_not_allowed(api_client, partner, tariffs):
    """Contract 3: an account without the permission to price that sends ``fare`` gets
    that job rejected with 403-style ``fare_not_allowed``; the rest of the batch goes on."""
    from partners.models import Account

    Account.objects.filter(pk=partner.pk).update(may_set_fare=False)
    api_client.credentials(HTTP_X_API_KEY=partner.raw_key)
    jobs = [partner_job(jobRef="PRICED", fare=40), partner_job(jobRef="TARIFF", fare=None)]

    response = api_client.post(JOBS, data=json.dumps(jobs), content_type="application/json")

    assert response.status_code == 207
    priced, tariff = response.json()["results"]
    assert (priced["outcome"], priced["code"], list(priced["errors"])) == (
        "rejected",
        "fare_not_allowed",
        ["fare"],
    )
    assert tariff["outcome"] == "created"
    assert list(Booking.objects.values_list("job_ref", flat=True)) == ["TARIFF"]


def test_intake_uses_the_one_pickup_tolerance(api_client, partner, settings):
    """Issue 12: "Pickup in the past is tolerated 5 minutes for quotes, 2 for bookings and
    15 for intake"; intake now follows PICKUP_PAST_TOLERANCE_SECONDS."""
    settings.PICKUP_PAST_TOLERANCE_SECONDS = 60
    api_client.credentials(HTTP_X_API_KEY=partner.raw_key)
    ten_minutes_ago = (timezone.now() - timedelta(minutes=10)).isoformat()

    response = api_client.post(
        JOBS,
        data=json.dumps([partner_job(pickupTime=ten_minutes_ago)]),
        content_type="application/json",
    )

    assert response.json()["results"][0]["code"] == "pickup_in_past"
    assert Booking.objects.count() == 0


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_copies_of_one_signed_amendment_at_the_same_instant_apply_once(make_account):
    """Contract 1.2: of many copies of one signed request, exactly one runs."""
    from django.db import connection
    from django.test import Client

    if connection.vendor != "postgresql":
        pytest.skip("needs PostgreSQL")
    partner = make_account("partner", name="Racer", slug="racer")
    signed_post(Client(), JOBS, partner, partner_job(jobRef="RACE-AM"))
    body = json.dumps({"jobRef": "RACE-AM", "action": "amend", "notes": "Gate 9"}).encode()
    ts = now_ts()

    def send():
        return signed_post(Client(), JOBS, partner, None, timestamp=ts, body=body).status_code

    statuses = race(*[send] * 8)
    assert set(statuses) <= {200, 409}
    booking = Booking.objects.get(job_ref="RACE-AM")
    assert booking.events.filter(detail__fields=["notes"]).count() == 1
    assert SignedRequest.objects.filter(account=partner).count() == 2


def test_the_cap_counts_this_jobs_settlements_only_and_says_what_is_owed(driver_job):
    """Issue 37 (make mutate FAMILY=trip): another job's settlements take nothing from
    this one's cap, and the refusal names the job, the fare due and what is settled."""
    client, booking = driver_job
    Booking.objects.filter(pk=booking.pk).update(status=BookingStatus.COMPLETED, fare="30.00")
    other = Booking.objects.get(pk=booking.pk)
    other.pk, other.reference = None, booking.reference.lower()
    other.save()
    assert settle(client, other, "30.00").status_code == 201
    assert settle(client, booking, "25.00").status_code == 201
    body = assert_problem(settle(client, booking, "5.01"), 409, "settlement_exceeds_fare")
    assert body["detail"] == (
        f"Job {booking.reference}: the passenger owes GBP 30.00 and GBP 25.00 is already "
        "settled; GBP 5.01 more would exceed the fare."
    )
    assert settle(client, booking, "5.00").status_code == 201
