"""Stripe's webhook endpoint (issue 36): verify the signature, hand the event to the
service, answer 2xx so Stripe stops redelivering. A bad signature or body is a 400
problem (Stripe's documented answer), a Stripe that cannot be reached to fetch the
payment a 503 with Retry-After: the event is not recorded, Stripe redelivers it."""

from __future__ import annotations

import stripe
from django.http import HttpResponse
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_POST

from api.problems import Problem, problem_response, service_unavailable_problem
from billing.provider import webhook_event
from billing.services.provider_events import provider_event_handle


@csrf_exempt
@require_POST
def stripe_webhook(request):
    signature = request.headers.get("Stripe-Signature", "")
    try:
        event = webhook_event(payload=request.body, signature=signature)
    except stripe.SignatureVerificationError:
        return problem_response(
            Problem(400, "invalid_body", "The Stripe-Signature header does not verify.")
        )
    except ValueError:
        return problem_response(Problem(400, "invalid_body", "The body is not a Stripe event."))
    try:
        outcome = provider_event_handle(event=event)
    except stripe.StripeError:
        return problem_response(service_unavailable_problem())
    return HttpResponse(outcome, content_type="text/plain")
