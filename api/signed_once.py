"""The HTTP side of "a signed request is good once" (contract 1.2).

The authenticator that verifies an HMAC signature (``partners.authentication``) claims it
and carries the claim on its principal (``request.auth.signed_request``); this mixin
answers a repeat with the first outcome and settles the claim of the first with its
outcome. It names no authenticator: the claim settles itself.
"""

from __future__ import annotations

from django.http import HttpResponse

from api.principals import SignedRequestClaim, request_account_principal

REPLAYED_HEADER = "Idempotent-Replayed"


class SignedRequestReplay(Exception):  # noqa: N818 (not an error: the answer to a repeat)
    """Raised by an authenticator: the request's signature was accepted before, and this
    was its first outcome."""

    def __init__(self, *, status: int, content_type: str, body: bytes) -> None:
        super().__init__(f"signed request repeated (first outcome {status})")
        self.status = status
        self.content_type = content_type
        self.body = body


class SignedOnceMixin:
    """For DRF views whose authentication may verify an HMAC signature."""

    # The claim of this request's signature until its outcome is recorded or forgotten.
    _signed_claim: SignedRequestClaim | None = None

    def perform_authentication(self, request):
        super().perform_authentication(request)
        principal = request_account_principal(request)
        self._signed_claim = principal.signed_request if principal is not None else None

    def handle_exception(self, exc):
        if isinstance(exc, SignedRequestReplay):
            response = HttpResponse(exc.body, status=exc.status, content_type=exc.content_type)
            response[REPLAYED_HEADER] = "true"
            return response
        try:
            return super().handle_exception(exc)
        except BaseException:
            # An unexpected failure is no outcome: a copy of the request may run again.
            claim, self._signed_claim = self._signed_claim, None
            if claim is not None:
                claim.forget()
            raise

    def finalize_response(self, request, response, *args, **kwargs):
        response = super().finalize_response(request, response, *args, **kwargs)
        # Recorded once, whatever happens next.
        claim, self._signed_claim = self._signed_claim, None
        if claim is None:
            return response
        if response.streaming:
            claim.forget()
            return response
        if hasattr(response, "render") and not response.is_rendered:
            response.render()
        claim.outcome_record(
            status=response.status_code,
            content_type=response.get("Content-Type", ""),
            body=response.content,
        )
        return response
