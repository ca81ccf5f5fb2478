"""The driver's customer at the payment provider and the ways to pay it holds (issue 36):
a card saved through Stripe.js, a Bacs Direct Debit mandate through Stripe Checkout.
No card or account number reaches this service."""

from __future__ import annotations

from typing import Any

from billing.models import (
    PaymentCustomer,
    PaymentMethod,
    PaymentMethodKind,
)
from billing.provider import object_id, plain, stripe_client


def payment_customer_ensure(*, driver) -> PaymentCustomer:
    """The driver's customer at the provider, created once (idempotency key per driver,
    and the one-to-one row)."""
    existing = PaymentCustomer.objects.filter(driver=driver).first()
    if existing:
        return existing
    customer = plain(
        stripe_client(driver_id=driver.pk).v1.customers.create(
            params={
                "name": driver.name,
                "email": driver.email or None,
                "metadata": {"driver_id": str(driver.pk)},
            },
            options={"idempotency_key": f"customer-driver-{driver.pk}"},
        )
    )
    record, _ = PaymentCustomer.objects.get_or_create(
        driver=driver, defaults={"customer_id": customer["id"]}
    )
    return record


def card_setup_start(*, driver) -> str:
    """A SetupIntent for a card used off-session; returns its client secret for Stripe.js
    (the card is typed into Stripe's own fields and never reaches this service)."""
    customer = payment_customer_ensure(driver=driver)
    intent = stripe_client(driver_id=driver.pk).v1.setup_intents.create(
        params={
            "customer": customer.customer_id,
            "payment_method_types": ["card"],
            "usage": "off_session",
            "metadata": {"driver_id": str(driver.pk)},
        }
    )
    return intent["client_secret"]


def direct_debit_setup_start(*, driver, success_url: str, cancel_url: str) -> str:
    """A Stripe Checkout session in setup mode for a Bacs Direct Debit mandate; returns the
    URL of Stripe's hosted page (Stripe shows the mandate and the Direct Debit Guarantee).
    """
    customer = payment_customer_ensure(driver=driver)
    session = stripe_client(driver_id=driver.pk).v1.checkout.sessions.create(
        params={
            "mode": "setup",
            "currency": "gbp",
            "customer": customer.customer_id,
            "payment_method_types": ["bacs_debit"],
            "success_url": success_url + "?session_id={CHECKOUT_SESSION_ID}",
            "cancel_url": cancel_url,
            "metadata": {"driver_id": str(driver.pk)},
        }
    )
    return session["url"]


def setup_complete(*, driver, setup_intent_id: str = "", session_id: str = "") -> PaymentMethod:
    """Record the way to pay a finished SetupIntent (or Checkout session) saved, after
    checking it belongs to this driver's customer. Raises ``LookupError`` otherwise."""
    client = stripe_client(driver_id=driver.pk)
    customer = PaymentCustomer.objects.filter(driver=driver).first()
    if customer is None:
        raise LookupError("No payment customer for this driver.")
    if session_id:
        session = plain(client.v1.checkout.sessions.retrieve(session_id))
        setup_intent_id = object_id(session.get("setup_intent"))
    intent = plain(client.v1.setup_intents.retrieve(setup_intent_id))
    if object_id(intent.get("customer")) != customer.customer_id:
        raise LookupError("This setup does not belong to the driver.")
    if intent.get("status") != "succeeded" or not intent.get("payment_method"):
        raise LookupError(f"The way to pay was not saved ({intent.get('status')}).")
    mandate_id = object_id(intent.get("mandate"))
    return payment_method_record(
        driver=driver,
        method=plain(client.v1.payment_methods.retrieve(object_id(intent["payment_method"]))),
        mandate=plain(client.v1.mandates.retrieve(mandate_id)) if mandate_id else None,
    )


def mandate_fields(mandate) -> dict[str, Any]:
    """The Bacs mandate reference the driver's bank statement shows, and its status (an
    inactive mandate is not charged)."""
    details = (mandate.get("payment_method_details") or {}).get("bacs_debit") or {}
    status = mandate.get("status", "")
    return {
        "mandate_reference": details.get("reference") or mandate.get("id", ""),
        "mandate_status": status,
        "active": status != "inactive",
    }


def payment_method_record(*, driver, method, mandate=None) -> PaymentMethod:
    """Create or refresh the row shown to the driver: brand and last four, or bank name
    and mandate reference. The newest active method is the one charged."""
    kind = method.get("type", "card")
    fields: dict[str, Any] = {"kind": kind, "active": True}
    if kind == PaymentMethodKind.BACS_DEBIT:
        bacs = method.get("bacs_debit") or {}
        fields.update(last4=bacs.get("last4") or "", sort_code=bacs.get("sort_code") or "")
        if mandate is not None:
            fields.update(mandate_fields(mandate))
    else:
        card = method.get("card") or {}
        fields.update(brand=card.get("brand") or "", last4=card.get("last4") or "")
    record, _ = PaymentMethod.objects.update_or_create(
        provider_id=method["id"], defaults={"driver": driver, **fields}
    )
    return record


def payment_method_current(*, driver_id: int) -> PaymentMethod | None:
    return PaymentMethod.objects.filter(driver_id=driver_id, active=True).first()
