"""Bacs Direct Debit set up on Stripe Checkout (issue 36). localstripe has neither
Checkout nor Bacs, so these are Stripe's documented exchanges (docs.stripe.com/api:
Checkout Sessions, SetupIntents, PaymentMethods with ``bacs_debit``, Mandates; and
docs.stripe.com/payments/bacs-debit/set-up-payment), recorded with ``responses`` against
the real ``stripe`` client."""

from __future__ import annotations

from urllib.parse import parse_qs

import pytest
import responses
from django.contrib.auth import get_user_model
from django.urls import reverse

from billing.models import PaymentMethod
from drivers.tests.factories import BilledDriverFactory

pytestmark = pytest.mark.django_db

API = "https://api.stripe.com/v1"
CUSTOMER = {"id": "cus_R1bacs", "object": "customer", "email": None, "metadata": {}}
SESSION = {
    "id": "cs_test_a1B2c3",
    "object": "checkout.session",
    "mode": "setup",
    "status": "open",
    "customer": "cus_R1bacs",
    "setup_intent": "seti_1Bacs",
    "payment_method_types": ["bacs_debit"],
    "url": "https://checkout.stripe.com/c/pay/cs_test_a1B2c3",
}
SETUP_INTENT = {
    "id": "seti_1Bacs",
    "object": "setup_intent",
    "customer": "cus_R1bacs",
    "status": "succeeded",
    "usage": "off_session",
    "payment_method": "pm_1Bacs",
    "payment_method_types": ["bacs_debit"],
    "mandate": "mandate_1Bacs",
}
METHOD = {
    "id": "pm_1Bacs",
    "object": "payment_method",
    "type": "bacs_debit",
    "customer": "cus_R1bacs",
    "bacs_debit": {"fingerprint": "Fx1", "last4": "2345", "sort_code": "108800"},
}
MANDATE = {
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
            "url": "https://pay.stripe.com/bacs/mandate/NXDSYREGC9PSMKWY",
        },
    },
}


@pytest.fixture
def stripe_test_mode(settings):
    settings.BILLING_COLLECTION_BACKEND = "billing.collection.StripeCollection"
    settings.STRIPE_SECRET_KEY = "sk_test_recorded"
    settings.STRIPE_PUBLISHABLE_KEY = "pk_test_recorded"
    settings.STRIPE_WEBHOOK_SECRET = "whsec_recorded"
    settings.STRIPE_API_BASE = ""
    with responses.RequestsMock() as recorded:
        yield recorded


def test_a_driver_sets_up_direct_debit_on_stripe_checkout_and_sees_the_mandate(
    client, stripe_test_mode
):
    recorded = stripe_test_mode
    recorded.post(f"{API}/customers", json=CUSTOMER)
    recorded.post(f"{API}/checkout/sessions", json=SESSION)
    recorded.get(f"{API}/checkout/sessions/cs_test_a1B2c3", json={**SESSION, "status": "complete"})
    recorded.get(f"{API}/setup_intents/seti_1Bacs", json=SETUP_INTENT)
    recorded.get(f"{API}/payment_methods/pm_1Bacs", json=METHOD)
    recorded.get(f"{API}/mandates/mandate_1Bacs", json=MANDATE)
    user = get_user_model().objects.create_user("asha", password="pw-123456!")
    driver = BilledDriverFactory(user=user)
    client.force_login(user)

    # The driver asks for Direct Debit and is sent to Stripe's hosted page
    started = client.post(reverse("billing:direct-debit-add"))
    assert started.status_code == 302
    assert started["Location"] == SESSION["url"]
    sent = parse_qs(recorded.calls[1].request.body)
    assert sent["mode"] == ["setup"]
    assert sent["payment_method_types[0]"] == ["bacs_debit"]
    assert sent["customer"] == ["cus_R1bacs"]
    assert sent["success_url"][0].endswith(
        "/driver/billing/pay/saved/?session_id={CHECKOUT_SESSION_ID}"
    )
    assert recorded.calls[1].request.headers["Authorization"] == "Bearer sk_test_recorded"

    # Stripe sends the driver back with the session id
    back = client.get(reverse("billing:payment-method-saved"), {"session_id": "cs_test_a1B2c3"})
    assert back.status_code == 302

    method = PaymentMethod.objects.get(driver=driver)
    assert method.kind == "bacs_debit"
    assert (method.sort_code, method.last4) == ("108800", "2345")
    assert method.mandate_reference == "NXDSYREGC9PSMKWY"
    html = client.get(reverse("billing:subscription")).content.decode()
    assert "Direct Debit, sort code 108800, account ending 2345 (mandate NXDSYREGC9PSMKWY)" in html


def test_a_checkout_session_of_another_customer_records_nothing(client, stripe_test_mode):
    recorded = stripe_test_mode
    recorded.post(f"{API}/customers", json=CUSTOMER)
    recorded.post(f"{API}/checkout/sessions", json=SESSION)
    recorded.get(
        f"{API}/checkout/sessions/cs_test_other",
        json={**SESSION, "id": "cs_test_other", "setup_intent": "seti_other"},
    )
    recorded.get(
        f"{API}/setup_intents/seti_other",
        json={**SETUP_INTENT, "id": "seti_other", "customer": "cus_someone_else"},
    )
    user = get_user_model().objects.create_user("ben", password="pw-123456!")
    driver = BilledDriverFactory(user=user)
    client.force_login(user)
    client.post(reverse("billing:direct-debit-add"))

    client.get(reverse("billing:payment-method-saved"), {"session_id": "cs_test_other"})

    assert not PaymentMethod.objects.filter(driver=driver).exists()
