"""The HTTP side of "a signed request is good once" (contract 1.2).

Authentication claims each verified signature (``partners.services.signatures``) and
carries the claim on its principal (``request.auth.signed_request_id``); this mixin
answers a repeat with the first outcome and records the outcome of the first.
"""

from __future__ import annotations

from django.http import HttpResponse

from api.principals import request_account_principal
from partners.services.signatures import (
    SignedRequestRepeated,
    signed_request_forget,
    signed_request_outcome_record,
)

REPLAYED_HEADER = "Idempotent-Replayed"


class SignedOnceMixin:
    """For DRF views whose authentication may verify an HMAC signature."""

    # The claim of this request's signature until its outcome is recorded or forgotten.
    _signed_claim_id: int | None = None

    def perform_authentication(self, request):
        super().perform_authentication(request)
        principal = request_account_principal(request)
        self._signed_claim_id = principal.signed_request_id if principal is not None else None

    def handle_exception(self, exc):
        if isinstance(exc, SignedRequestRepeated):
            outcome = exc.outcome
            response = HttpResponse(
                outcome.body, status=outcome.status, content_type=outcome.content_type
            )
            response[REPLAYED_HEADER] = "true"
            return response
        try:
            return super().handle_exception(exc)
        except BaseException:
            # An unexpected failure is no outcome: a copy of the request may run again.
            claim_id, self._signed_claim_id = self._signed_claim_id, None
            if claim_id is not None:
                signed_request_forget(claim_id=claim_id)
            raise

    def finalize_response(self, request, response, *args, **kwargs):
        response = super().finalize_response(request, response, *args, **kwargs)
        # Recorded once, whatever happens next.
        claim_id, self._signed_claim_id = self._signed_claim_id, None
        if claim_id is None:
            return response
        if response.streaming:
            signed_request_forget(claim_id=claim_id)
            return response
        if hasattr(response, "render") and not response.is_rendered:
            response.render()
        signed_request_outcome_record(
            claim_id=claim_id,
            status=response.status_code,
            content_type=response.get("Content-Type", ""),
            body=response.content,
        )
        return response
