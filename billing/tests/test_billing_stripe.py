"""Weekly invoices charged through Stripe (issue 36), against localstripe, a real server.

Webhook bodies are the provider's own events (localstripe's /v1/events), signed as Stripe
signs them; where localstripe lacks a feature (disputes, Bacs mandates, Checkout) the
payload is Stripe's documented one (docs.stripe.com/api), recorded in this file (disputes:
test_billing_disputes.py).
"""

from __future__ import annotations

from datetime import date, timedelta
from decimal import Decimal
from unittest import mock

import pytest
import requests
from django.contrib.auth import get_user_model
from django.core import mail
from django.core.management import call_command
from django.core.management.base import SystemCheckError
from django.urls import reverse
from django.utils import timezone

from billing import tasks
from billing.models import (
    Invoice,
    InvoiceStatus,
    PaymentMethod,
    ProviderEvent,
    Subscription,
    SubscriptionStage,
)
from billing.services import payment_methods, payments
from billing.services.collection import invoices_collect
from billing.services.credit_notes import credit_note_issue, credit_note_refund
from billing.services.invoicing import invoices_generate_week
from billing.tests.localstripe import (
    CARD_DECLINES_CHARGES,
    CARD_OK,
    WEBHOOK_SECRET,
    LocalStripe,
    signed,
)
from billing.tests.records import after, at_london, payment
from dispatch.periodic import PeriodicTasks
from drivers.tests.factories import BilledDriverFactory

pytestmark = pytest.mark.django_db

WEEK = date(2026, 6, 1)
WEBHOOK = "/billing/stripe/webhook"


def driver_with_card(server, *, number: str = CARD_OK, name: str = "Asha Khan", username="asha"):
    user = get_user_model().objects.create_user(username, password="pw-123456!")
    driver = BilledDriverFactory(user=user, name=name, email=f"{username}@example.com")
    secret = payment_methods.card_setup_start(driver=driver)
    intent = server.confirm_card_setup(secret, number)
    payment_methods.setup_complete(driver=driver, setup_intent_id=intent["id"])
    return driver


def billed_week(driver, *, week: date = WEEK) -> Invoice:
    payment(driver=driver, amount="640.00", at=at_london(week + timedelta(days=1)))
    invoices_generate_week(week_start=week, now=after(week))
    invoices_collect(week_start=week)
    return Invoice.objects.get(driver=driver, week_start=week)


def charges_of(server, driver) -> list[dict]:
    customer = driver.payment_customer.customer_id
    return server.get("/v1/charges", customer=customer, limit=100)["data"]


def charge_losing_the_commit(invoice: Invoice) -> None:
    """Charge, and fail the commit that would record the outcome (after the provider
    took the money)."""
    lost = RuntimeError("commit lost")
    with (
        mock.patch.object(payments, "invoice_settle_from_intent", side_effect=lost),
        pytest.raises(RuntimeError),
    ):
        payments.invoice_charge(invoice_id=invoice.pk)


def deliver(client, event: dict, secret: str = WEBHOOK_SECRET):
    body, signature = signed(event, secret)
    return client.post(
        WEBHOOK, data=body, content_type="application/json", HTTP_STRIPE_SIGNATURE=signature
    )


def provider_events(server, kind: str) -> list[dict]:
    return [event for event in server.events() if event["type"] == kind]


# --- adding a way to pay ---------------------------------------------------------------


def test_a_card_saved_on_stripe_is_listed_with_brand_and_last_four(client, stripe_on):
    driver = driver_with_card(stripe_on)

    client.force_login(driver.user)
    html = client.get(reverse("billing:subscription")).content.decode()

    method = PaymentMethod.objects.get(driver=driver)
    assert method.provider_id.startswith("pm_")
    assert "Visa ending 4242" in html
    assert 'id="add-card"' in html
    assert "try again 2, 4, 7 days after each failure" in html
    assert "Once 2 weekly invoices stay unpaid, new job offers are paused" in html


def test_the_card_page_loads_stripe_js_with_a_setup_intent(client, stripe_on):
    user = get_user_model().objects.create_user("ben", password="pw-123456!")
    BilledDriverFactory(user=user)
    client.force_login(user)

    html = client.get(reverse("billing:card-add")).content.decode()

    assert f"{stripe_on.base}/js.stripe.com/v3/" in html
    assert "_secret_" in html
    assert "confirmCardSetup" in html


def test_with_the_manual_backend_the_page_says_staff_collect_payment(client):
    user = get_user_model().objects.create_user("cara", password="pw-123456!")
    BilledDriverFactory(user=user)
    client.force_login(user)

    html = client.get(reverse("billing:subscription")).content.decode()

    assert "Payment is collected by the network's staff" in html
    assert client.get(reverse("billing:card-add")).status_code == 404


def test_another_drivers_setup_intent_is_not_recorded(client, stripe_on):
    asha = driver_with_card(stripe_on)
    user = get_user_model().objects.create_user("dev", password="pw-123456!")
    other = BilledDriverFactory(user=user)
    payment_methods.payment_customer_ensure(driver=other)
    stolen = stripe_on.get("/v1/setup_intents", limit=10)["data"][0]["id"]

    client.force_login(user)
    client.get(reverse("billing:payment-method-saved"), {"setup_intent": stolen})

    assert not PaymentMethod.objects.filter(driver=other).exists()
    assert PaymentMethod.objects.filter(driver=asha).count() == 1


# --- charging ------------------------------------------------------------------------


def test_the_weekly_run_charges_each_invoice_once_even_run_twice(stripe_on):
    driver = driver_with_card(stripe_on)
    invoice = billed_week(driver)
    assert invoice.status == InvoiceStatus.DUE

    assert payments.payments_charge_due() == 1
    assert payments.payments_charge_due() == 0
    invoices_collect(week_start=WEEK)
    payments.payments_charge_due()

    invoice.refresh_from_db()
    assert invoice.status == InvoiceStatus.PAID
    assert invoice.total == Decimal("20.00")
    assert invoice.provider_payment_id.startswith("pi_")
    assert invoice.payment_reference.startswith("ch_")
    charges = charges_of(stripe_on, driver)
    assert [(c["amount"], c["status"]) for c in charges] == [(2000, "succeeded")]


def test_a_declined_card_fails_the_week_tells_the_driver_and_queues_it_for_staff(
    client, stripe_on, admin_client, django_capture_on_commit_callbacks
):
    driver = driver_with_card(stripe_on, number=CARD_DECLINES_CHARGES, username="ed")
    invoice = billed_week(driver)

    with (
        mock.patch("dispatch.tasks.driver_message_send.delay") as texted,
        django_capture_on_commit_callbacks(execute=True),
    ):
        payments.payments_charge_due()

    invoice.refresh_from_db()
    assert invoice.status == InvoiceStatus.FAILED
    assert invoice.failure_message
    assert invoice.next_attempt_at is not None
    assert invoice.collection_attempts == 1
    assert [m.to for m in mail.outbox] == [["ed@example.com"]]
    assert "https://taxi.example/driver/billing/" in mail.outbox[0].body
    assert {call.args[1] for call in texted.call_args_list} == {"sms", "whatsapp"}
    queue = admin_client.get(reverse("admin:billing_failedpayment_changelist")).content.decode()
    assert invoice.display_number in queue
    client.force_login(driver.user)
    page = client.get(reverse("billing:invoice", args=[invoice.pk])).content.decode()
    assert 'id="failure"' in page


def test_a_failed_week_is_retried_on_the_schedule_and_can_then_be_paid(stripe_on):
    driver = driver_with_card(stripe_on, number=CARD_DECLINES_CHARGES, username="fay")
    invoice = billed_week(driver)
    payments.payments_charge_due()
    invoice.refresh_from_db()
    first_retry = invoice.next_attempt_at

    # Nothing before the retry is due; the driver adds a working card meanwhile.
    assert payments.payments_charge_due(now=first_retry - timedelta(minutes=1)) == 0
    secret = payment_methods.card_setup_start(driver=driver)
    intent = stripe_on.confirm_card_setup(secret, CARD_OK)
    payment_methods.setup_complete(driver=driver, setup_intent_id=intent["id"])
    assert payments.payments_charge_due(now=first_retry) == 1

    invoice.refresh_from_db()
    assert invoice.status == InvoiceStatus.PAID
    assert invoice.collection_attempts == 2
    statuses = sorted(c["status"] for c in charges_of(stripe_on, driver))
    assert statuses == ["failed", "succeeded"]


def test_the_driver_pays_a_failed_week_now_after_changing_card(client, stripe_on):
    driver = driver_with_card(stripe_on, number=CARD_DECLINES_CHARGES, username="nat")
    invoice = billed_week(driver)
    payments.payments_charge_due()
    secret = payment_methods.card_setup_start(driver=driver)
    intent = stripe_on.confirm_card_setup(secret, CARD_OK)
    payment_methods.setup_complete(driver=driver, setup_intent_id=intent["id"])
    other = get_user_model().objects.create_user("oli", password="pw-123456!")
    BilledDriverFactory(user=other)
    pay = reverse("billing:invoice-pay", args=[invoice.pk])

    client.force_login(other)
    assert client.post(pay).status_code == 404
    client.force_login(driver.user)
    assert (
        'id="pay-now"' in client.get(reverse("billing:invoice", args=[invoice.pk])).content.decode()
    )
    response = client.post(pay)

    assert response.status_code == 302
    invoice.refresh_from_db()
    assert invoice.status == InvoiceStatus.PAID
    assert client.post(pay).status_code == 404  # nothing left to pay


def test_two_unpaid_weeks_pause_offers(stripe_on):
    driver = driver_with_card(stripe_on, number=CARD_DECLINES_CHARGES, username="gus")
    billed_week(driver, week=WEEK)
    billed_week(driver, week=WEEK + timedelta(days=7))

    payments.payments_charge_due()

    assert Invoice.objects.filter(driver=driver, status=InvoiceStatus.FAILED).count() == 2
    assert Subscription.objects.get(driver=driver).stage == SubscriptionStage.SUSPENDED
    driver.refresh_from_db()
    assert driver.stage == SubscriptionStage.SUSPENDED


def test_a_driver_with_no_way_to_pay_fails_and_is_told(
    stripe_on, django_capture_on_commit_callbacks
):
    driver = BilledDriverFactory(email="hal@example.com")
    invoice = billed_week(driver)

    with django_capture_on_commit_callbacks(execute=True):
        payments.payments_charge_due()

    invoice.refresh_from_db()
    assert invoice.status == InvoiceStatus.FAILED
    assert "No card or Direct Debit" in invoice.failure_message
    assert len(mail.outbox) == 1

    # Retried on the schedule (2, 4, 7 days after each failure), then no more.
    # and reminded at each, with the same failure told once however often it is reported.
    waits = []
    for _ in range(3):
        before = invoice.next_attempt_at
        with django_capture_on_commit_callbacks(execute=True):
            payments.payments_charge_due(now=before)
        invoice.refresh_from_db()
        waits.append(invoice.next_attempt_at and (invoice.next_attempt_at - before).days)
    assert waits == [4, 7, None]
    assert invoice.collection_attempts == 4
    assert len(mail.outbox) == 4


# --- faults: the commit after the charge, lost and repeated webhooks ---------------------


def test_a_charge_that_succeeds_while_our_commit_fails_charges_once_and_ends_paid(stripe_on):
    driver = driver_with_card(stripe_on)
    invoice = billed_week(driver)

    charge_losing_the_commit(invoice)
    invoice.refresh_from_db()
    assert invoice.status == InvoiceStatus.DUE
    assert invoice.attempted_at is not None
    assert not invoice.provider_payment_id

    # The next charge run leaves the attempt alone (it may still be in flight); the
    # reconciliation asks the provider, finds the attempt's payment and sends nothing.
    assert payments.payments_charge_due() == 0
    payments.payments_reconcile(now=invoice.attempted_at + timedelta(minutes=16))
    assert payments.payments_charge_due(now=invoice.attempted_at + timedelta(minutes=17)) == 0
    invoice.refresh_from_db()
    assert invoice.status == InvoiceStatus.PAID
    assert len(charges_of(stripe_on, driver)) == 1


def test_a_lost_webhook_and_lost_commit_are_settled_by_the_reconciliation(stripe_on):
    driver = driver_with_card(stripe_on)
    invoice = billed_week(driver)
    charge_losing_the_commit(invoice)
    invoice.refresh_from_db()

    # Not yet: the reconciliation waits BILLING_RECONCILE_AFTER_MINUTES for the webhook.
    assert payments.payments_reconcile(now=invoice.attempted_at) == 0
    later = invoice.attempted_at + timedelta(minutes=16)
    assert payments.payments_reconcile(now=later) == 1

    invoice.refresh_from_db()
    assert invoice.status == InvoiceStatus.PAID
    assert len(charges_of(stripe_on, driver)) == 1


def test_the_providers_signed_event_delivered_twice_is_handled_once(client, stripe_on):
    driver = driver_with_card(stripe_on)
    invoice = billed_week(driver)
    charge_losing_the_commit(invoice)
    (succeeded,) = provider_events(stripe_on, "payment_intent.succeeded")

    first = deliver(client, succeeded)
    second = deliver(client, succeeded)

    assert (first.status_code, first.content) == (200, b"handled")
    assert (second.status_code, second.content) == (200, b"duplicate")
    assert ProviderEvent.objects.filter(event_id=succeeded["id"]).count() == 1
    invoice.refresh_from_db()
    assert invoice.status == InvoiceStatus.PAID
    assert invoice.total == Decimal("20.00")


def test_events_out_of_order_never_move_a_paid_week_back(client, stripe_on):
    driver = driver_with_card(stripe_on, number=CARD_DECLINES_CHARGES, username="ivy")
    invoice = billed_week(driver)
    payments.payments_charge_due()
    invoice.refresh_from_db()
    secret = payment_methods.card_setup_start(driver=driver)
    intent = stripe_on.confirm_card_setup(secret, CARD_OK)
    payment_methods.setup_complete(driver=driver, setup_intent_id=intent["id"])
    payments.payments_charge_due(now=invoice.next_attempt_at)
    (failed,) = provider_events(stripe_on, "payment_intent.payment_failed")
    (succeeded,) = provider_events(stripe_on, "payment_intent.succeeded")

    # The success arrives first, then the older failure.
    assert deliver(client, succeeded).status_code == 200
    assert deliver(client, failed).status_code == 200

    invoice.refresh_from_db()
    assert invoice.status == InvoiceStatus.PAID


def test_an_event_with_a_bad_signature_is_refused_and_changes_nothing(client, stripe_on):
    driver = driver_with_card(stripe_on)
    invoice = billed_week(driver)
    charge_losing_the_commit(invoice)
    (succeeded,) = provider_events(stripe_on, "payment_intent.succeeded")

    forged = deliver(client, succeeded, secret="whsec_someone_else")
    unsigned = client.post(WEBHOOK, data="{}", content_type="application/json")
    garbage = client.post(
        WEBHOOK, data="not json", content_type="application/json", HTTP_STRIPE_SIGNATURE="t=1"
    )

    assert [r.status_code for r in (forged, unsigned, garbage)] == [400, 400, 400]
    assert forged["Content-Type"] == "application/problem+json"
    assert forged.json()["code"] == "invalid_body"
    assert not ProviderEvent.objects.exists()
    invoice.refresh_from_db()
    assert invoice.status == InvoiceStatus.DUE


def test_a_credit_note_on_a_paid_week_refunds_through_stripe(client, stripe_on):
    driver = driver_with_card(stripe_on)
    invoice = billed_week(driver)
    payments.payments_charge_due()
    invoice.refresh_from_db()

    with mock.patch("billing.services.credit_notes.task_enqueue_on_commit") as queued:
        note = credit_note_issue(invoice=invoice, amount=Decimal("20.00"), reason="Goodwill")
    assert queued.call_args.kwargs == {"note_id": note.pk}
    refund_id = credit_note_refund(note_id=note.pk)

    refund = stripe_on.get(f"/v1/refunds/{refund_id}")
    assert (refund["amount"], refund["status"]) == (2000, "succeeded")
    (refunded,) = provider_events(stripe_on, "charge.refunded") or [None]
    if refunded is None:
        # localstripe sends no charge.refunded: Stripe's documented event, with the charge
        # as the provider now holds it.
        charge = stripe_on.get(f"/v1/charges/{invoice.payment_reference}")
        refunded = {
            "id": "evt_1Refunded",
            "object": "event",
            "type": "charge.refunded",
            "created": 1780000000,
            "data": {"object": charge},
        }
    assert deliver(client, refunded).status_code == 200
    invoice.refresh_from_db()
    assert invoice.status == InvoiceStatus.REFUNDED


def test_a_bacs_mandate_is_listed_with_sort_code_and_mandate_reference(client, stripe_on):
    # Stripe's documented bacs_debit PaymentMethod and Mandate (localstripe has no Bacs).
    user = get_user_model().objects.create_user("jo", password="pw-123456!")
    driver = BilledDriverFactory(user=user)
    method = {
        "id": "pm_1Bacs",
        "object": "payment_method",
        "type": "bacs_debit",
        "bacs_debit": {"fingerprint": "x", "last4": "2345", "sort_code": "108800"},
    }
    mandate = {
        "id": "mandate_1Bacs",
        "object": "mandate",
        "payment_method": "pm_1Bacs",
        "status": "pending",
        "type": "multi_use",
        "payment_method_details": {
            "type": "bacs_debit",
            "bacs_debit": {
                "network_status": "pending",
                "reference": "NXDSYREGC9PSMKWY",
                "url": "https://pay.stripe.com/bacs/mandate",
            },
        },
    }
    payment_methods.payment_method_record(driver=driver, method=method, mandate=mandate)
    activated = {
        "id": "evt_1Mandate",
        "object": "event",
        "type": "mandate.updated",
        "created": 1780000000,
        "data": {"object": {**mandate, "status": "active"}},
    }
    assert deliver(client, activated).status_code == 200

    client.force_login(user)
    html = client.get(reverse("billing:subscription")).content.decode()
    assert "Direct Debit, sort code 108800, account ending 2345" in html
    assert "NXDSYREGC9PSMKWY" in html
    assert PaymentMethod.objects.get(provider_id="pm_1Bacs").mandate_status == "active"


# --- receipts and VAT ------------------------------------------------------------------


def test_a_paid_week_has_a_vat_invoice_and_receipt_as_pages_and_pdfs(client, stripe_on, settings):
    settings.VAT_NUMBER = "GB123456789"
    settings.BILLING_SUPPLIER_NAME = "Open Taxi Network Ltd"
    settings.BILLING_SUPPLIER_ADDRESS = "1 Park Row, Leeds LS1 5AB"
    driver = driver_with_card(stripe_on)
    invoice = billed_week(driver)
    payments.payments_charge_due()
    client.force_login(driver.user)

    page = client.get(reverse("billing:invoice-print", args=[invoice.pk])).content.decode()
    receipt = client.get(reverse("billing:receipt-print", args=[invoice.pk]))
    pdf = client.get(reverse("billing:receipt-pdf", args=[invoice.pk]))

    assert "VAT invoice" in page
    for fact in ("GB123456789", "Open Taxi Network Ltd", "1 Park Row", invoice.display_number):
        assert fact in page
    # £20.00 including VAT at 20%: VAT 20 × 20/120 = 3.33, net 16.67.
    assert 'id="net">£16.67' in page
    assert 'id="vat">£3.33' in page
    assert 'id="gross">£20.00' in page
    assert receipt.status_code == 200
    assert "Receipt" in receipt.content.decode()
    assert pdf["Content-Type"] == "application/pdf"
    assert pdf.content.startswith(b"%PDF")


def test_an_unpaid_week_has_no_receipt(client, stripe_on):
    driver = driver_with_card(stripe_on, number=CARD_DECLINES_CHARGES, username="kim")
    invoice = billed_week(driver)
    client.force_login(driver.user)

    assert client.get(reverse("billing:receipt-print", args=[invoice.pk])).status_code == 404
    assert client.get(reverse("billing:receipt-pdf", args=[invoice.pk])).status_code == 404
    assert client.get(reverse("billing:invoice-pdf", args=[invoice.pk])).status_code == 200


def test_a_driver_cannot_open_another_drivers_invoice_documents(client, stripe_on):
    driver = driver_with_card(stripe_on)
    invoice = billed_week(driver)
    user = get_user_model().objects.create_user("lou", password="pw-123456!")
    BilledDriverFactory(user=user)
    client.force_login(user)

    for name in ("billing:invoice-print", "billing:invoice-pdf", "billing:receipt-pdf"):
        assert client.get(reverse(name, args=[invoice.pk])).status_code == 404


# --- settings ----------------------------------------------------------------------------


def test_check_deploy_refuses_live_keys_without_webhook_signing(settings):
    settings.STRIPE_SECRET_KEY = "sk_live_example"
    settings.STRIPE_WEBHOOK_SECRET = ""

    with pytest.raises(SystemCheckError, match="billing.E001"):
        call_command("check", "--deploy", "--fail-level", "ERROR", tags=["security"])


def test_check_deploy_refuses_a_live_key_sent_to_benchmark_shards(settings):
    settings.STRIPE_SECRET_KEY = "sk_live_example"
    settings.STRIPE_WEBHOOK_SECRET = WEBHOOK_SECRET
    settings.STRIPE_API_BASE = ""
    settings.STRIPE_API_SHARDS = ["http://127.0.0.1:8420"]

    with pytest.raises(SystemCheckError, match="billing.E002"):
        call_command("check", "--deploy", "--fail-level", "ERROR", tags=["security"])


@pytest.fixture
def second_localstripe():
    server = LocalStripe().start()
    yield server
    server.stop()


def test_with_benchmark_shards_each_drivers_customer_and_charges_live_on_its_shard(
    stripe_on, second_localstripe, settings
):
    # Given two localstripe shards and two drivers whose ids map to different ones
    shards = [stripe_on, second_localstripe]
    settings.STRIPE_API_SHARDS = [server.base for server in shards]
    drivers = []
    for i in range(2):
        user = get_user_model().objects.create_user(f"s{i}", password="pw-123456!")
        driver = BilledDriverFactory(user=user, name=f"Shard {i}")
        server = shards[driver.pk % 2]
        secret = payment_methods.card_setup_start(driver=driver)
        intent = server.confirm_card_setup(secret, CARD_OK)
        payment_methods.setup_complete(driver=driver, setup_intent_id=intent["id"])
        drivers.append(driver)
    assert {d.pk % 2 for d in drivers} == {0, 1}
    invoices = [billed_week(driver) for driver in drivers]

    # When the weekly run charges them
    assert payments.payments_charge_due() == 2

    # Then each was charged once on its own shard, which alone knows the customer
    for driver, invoice in zip(drivers, invoices, strict=True):
        invoice.refresh_from_db()
        assert invoice.status == InvoiceStatus.PAID
        own, other = shards[driver.pk % 2], shards[(driver.pk + 1) % 2]
        assert [c["amount"] for c in charges_of(own, driver)] == [2000]
        with pytest.raises(requests.HTTPError, match="404"):
            other.get(f"/v1/customers/{driver.payment_customer.customer_id}")


def test_a_payment_of_another_customer_naming_the_invoice_settles_nothing(client, stripe_on):
    driver = driver_with_card(stripe_on)
    invoice = billed_week(driver)
    # Another environment on the same Stripe account charges its own invoice with our id.
    stranger = payments.stripe_client().v1.customers.create(params={})
    method = payments.stripe_client().v1.payment_methods.create(
        params={
            "type": "card",
            "card": {"number": CARD_OK, "exp_month": 12, "exp_year": 2034, "cvc": "123"},
        }
    )
    payments.stripe_client().v1.payment_methods.attach(method.id, params={"customer": stranger.id})
    payments.stripe_client().v1.payment_intents.create(
        params={
            "amount": 2000,
            "currency": "gbp",
            "customer": stranger.id,
            "payment_method": method.id,
            "confirm": True,
            "off_session": True,
            "metadata": {"invoice_id": str(invoice.pk), "attempt": "0"},
        }
    )
    (succeeded,) = provider_events(stripe_on, "payment_intent.succeeded")

    assert deliver(client, succeeded).status_code == 200

    invoice.refresh_from_db()
    assert invoice.status == InvoiceStatus.DUE


def test_a_webhook_while_stripe_is_unreachable_is_503_and_not_recorded(client, stripe_on, settings):
    driver = driver_with_card(stripe_on)
    invoice = billed_week(driver)
    charge_losing_the_commit(invoice)
    (succeeded,) = provider_events(stripe_on, "payment_intent.succeeded")
    settings.STRIPE_API_BASE = "http://127.0.0.1:9"  # nothing listens on discard

    response = deliver(client, succeeded)

    assert response.status_code == 503
    assert response["Retry-After"]
    assert not ProviderEvent.objects.exists()


def test_reconciliation_and_charging_run_on_beat_and_in_the_embedded_dispatcher():
    # The dispatcher started 16 minutes ago (Celery's schedules read the real clock).
    periodic = PeriodicTasks(now=timezone.now() - timedelta(minutes=16))

    ran = periodic.run_due()

    assert "billing-payments-charge-due" in ran
    assert "billing-payments-reconcile" in ran


def test_a_card_saved_without_coming_back_is_recorded_from_the_webhook(client, stripe_on):
    # The driver's phone lost signal after Stripe saved the card: no return to our page.
    user = get_user_model().objects.create_user("pia", password="pw-123456!")
    driver = BilledDriverFactory(user=user)
    saved = stripe_on.confirm_card_setup(payment_methods.card_setup_start(driver=driver), CARD_OK)
    # localstripe sends no setup_intent events: Stripe's documented envelope around the
    # SetupIntent as localstripe holds it.
    event = {
        "id": "evt_1SetupSucceeded",
        "object": "event",
        "type": "setup_intent.succeeded",
        "created": 1780000000,
        "data": {"object": stripe_on.get(f"/v1/setup_intents/{saved['id']}")},
    }

    assert deliver(client, event).status_code == 200
    assert deliver(client, event).content == b"duplicate"

    assert PaymentMethod.objects.get(driver=driver).label == "Visa ending 4242"


def test_a_detached_card_is_no_longer_charged(
    client, stripe_on, django_capture_on_commit_callbacks
):
    driver = driver_with_card(stripe_on)
    method = PaymentMethod.objects.get(driver=driver)
    # Stripe's documented payment_method.detached event (the driver removed the card).
    detached = {
        "id": "evt_1Detached",
        "object": "event",
        "type": "payment_method.detached",
        "created": 1780000000,
        "data": {
            "object": {
                "id": method.provider_id,
                "object": "payment_method",
                "customer": None,
                "type": "card",
            }
        },
    }
    assert deliver(client, detached).status_code == 200
    invoice = billed_week(driver)

    with django_capture_on_commit_callbacks(execute=True):
        payments.payments_charge_due()

    invoice.refresh_from_db()
    assert invoice.status == InvoiceStatus.FAILED
    assert "No card or Direct Debit" in invoice.failure_message
    assert charges_of(stripe_on, driver) == []


def test_the_charge_run_hands_out_chunks_and_a_chunk_queued_twice_charges_once(
    stripe_on, monkeypatch
):
    first = driver_with_card(stripe_on)
    second = driver_with_card(stripe_on, username="quin")
    invoices = [billed_week(first), billed_week(second)]
    ids = [invoice.pk for invoice in invoices]
    monkeypatch.setattr(tasks, "CHARGE_CHUNK", 1)

    assert tasks.payments_charge_due.apply().get() == 2
    assert payments.invoices_charge(invoice_ids=ids) == 0

    assert set(Invoice.objects.filter(pk__in=ids).values_list("status", flat=True)) == {"paid"}
    assert len(charges_of(stripe_on, first)) == 1
    assert len(charges_of(stripe_on, second)) == 1


def test_the_run_sends_one_payment_per_invoice_with_a_bounded_number_of_queries(
    stripe_on, django_assert_max_num_queries
):
    # Given three drivers' weeks due, each with a card on file
    invoices = [
        billed_week(driver_with_card(stripe_on, username=f"q{i}", name=f"Q {i}")) for i in range(3)
    ]
    before = len(stripe_on.get("/v1/payment_intents", limit=100)["data"])

    # When the run charges them: one query for what is due, then per invoice seven, in two
    # transactions (counted here as two savepoints each): lock, way to pay, customer, mark
    # the attempt; one request to Stripe; lock, check the customer, record the outcome
    with django_assert_max_num_queries(1 + 11 * len(invoices)):
        sent = payments.payments_charge_due()

    # Then each was sent once, created and confirmed together
    assert sent == 3
    intents = stripe_on.get("/v1/payment_intents", limit=100)["data"]
    assert len(intents) - before == 3
    assert {intent["status"] for intent in intents} == {"succeeded"}
    assert {i.pk for i in invoices} == set(
        Invoice.objects.filter(status=InvoiceStatus.PAID).values_list("pk", flat=True)
    )
