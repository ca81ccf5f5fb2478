"""Stripe's webhook endpoint (issue 36): verify the signature, hand the event to the
service, answer 2xx so Stripe stops redelivering (400 for a bad signature or body)."""

from __future__ import annotations

import logging

import stripe
from django.http import HttpResponse, JsonResponse
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_POST

from billing.provider import ProviderUnavailable, webhook_event
from billing.services.provider_events import provider_event_handle

logger = logging.getLogger(__name__)


def _problem(status: int, code: str, detail: str) -> JsonResponse:
    return JsonResponse(
        {"type": "about:blank", "title": detail, "status": status, "code": code, "detail": detail},
        status=status,
        content_type="application/problem+json",
    )


@csrf_exempt
@require_POST
def stripe_webhook(request):
    signature = request.headers.get("Stripe-Signature", "")
    try:
        event = webhook_event(payload=request.body, signature=signature)
    except stripe.SignatureVerificationError:
        return _problem(400, "signature_invalid", "The Stripe-Signature header does not verify.")
    except ValueError:
        return _problem(400, "payload_invalid", "The body is not a Stripe event.")
    try:
        outcome = provider_event_handle(event=event)
    except (stripe.APIConnectionError, stripe.APIError, ProviderUnavailable):
        # Not recorded: Stripe redelivers, and the reconciliation covers it meanwhile.
        response = _problem(503, "provider_unavailable", "Stripe could not be reached.")
        response["Retry-After"] = "60"
        return response
    return HttpResponse(outcome, content_type="text/plain")
