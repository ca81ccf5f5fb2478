"""Webhook events from the payment provider (issue 36): each handled once, in any order.

The event id is recorded first (``ProviderEvent``, unique), in the same transaction as
the change it makes, so a redelivered event changes nothing and an event whose handling
failed is not recorded and is handled again when Stripe redelivers it. Payment events
are not trusted for their snapshot: the PaymentIntent is fetched again and the invoice
moved to what it says now, so an older event arriving late cannot undo a newer one.
"""

from __future__ import annotations

import stripe
from django.db import IntegrityError, transaction

from billing.models import PaymentCustomer, PaymentMethod, ProviderEvent
from billing.provider import object_id, plain, stripe_client
from billing.services import disputes, payment_methods, payments

PAYMENT_EVENTS = {
    "payment_intent.succeeded",
    "payment_intent.payment_failed",
    "payment_intent.processing",
    "payment_intent.canceled",
}
# Each carries the dispute as it is then; its status decides (billing.services.disputes).
DISPUTE_EVENTS = {
    "charge.dispute.created",
    "charge.dispute.updated",
    "charge.dispute.closed",
    "charge.dispute.funds_withdrawn",
    "charge.dispute.funds_reinstated",
}


def provider_event_handle(*, event) -> str:
    """Apply one verified event; returns "duplicate", "ignored" or "handled"."""
    obj = plain(event.data.object)
    try:
        with transaction.atomic():
            ProviderEvent.objects.create(
                event_id=event.id, type=event.type, object_id=obj.get("id", "")[:100]
            )
            outcome = _apply(event.type, obj)
    except IntegrityError:
        return "duplicate"
    return outcome


def _apply(kind: str, obj) -> str:
    if kind in PAYMENT_EVENTS:
        try:
            intent = plain(stripe_client().v1.payment_intents.retrieve(obj["id"]))
        except stripe.InvalidRequestError:
            return "ignored"  # not a payment this account knows (another environment's)
        if not (intent.get("metadata") or {}).get("invoice_id"):
            return "ignored"
        payments.invoice_settle_from_intent(intent=intent)
        return "handled"
    if kind == "charge.refunded":
        return "handled" if payments.invoice_refunded(charge=obj) else "ignored"
    if kind in DISPUTE_EVENTS:
        return "handled" if disputes.invoice_dispute_update(dispute=obj) else "ignored"
    if kind in ("setup_intent.succeeded", "payment_method.attached", "payment_method.updated"):
        return _method_refresh(obj if kind != "setup_intent.succeeded" else None, obj)
    if kind == "payment_method.detached":
        PaymentMethod.objects.filter(provider_id=obj["id"]).update(active=False)
        return "handled"
    if kind == "mandate.updated":
        # Bacs mandates: active, pending or inactive; an inactive one is not charged.
        PaymentMethod.objects.filter(provider_id=object_id(obj.get("payment_method"))).update(
            **payment_methods.mandate_fields(obj)
        )
        return "handled"
    return "ignored"


def _method_refresh(method, obj) -> str:
    client = stripe_client()
    method_id = object_id(method["id"] if method is not None else obj.get("payment_method"))
    if not method_id:
        return "ignored"
    method = plain(client.v1.payment_methods.retrieve(method_id))
    # A SetupIntent names its customer; Stripe attaches the method to it on success.
    customer_id = object_id(method.get("customer")) or object_id(obj.get("customer"))
    customer = PaymentCustomer.objects.filter(customer_id=customer_id).first()
    if customer is None:
        return "ignored"
    payment_methods.payment_method_record(driver=customer.driver, method=method)
    return "handled"
