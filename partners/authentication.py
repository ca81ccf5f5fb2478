"""API key and HMAC authentication for external accounts (contract 1.2).

Both classes set ``request.account`` (and ``request.account_key`` for keys) on the
underlying Django request so that rate limits and services can attribute the call.
A key that is presented but unknown, revoked or expired is 401, never anonymous.
"""

from __future__ import annotations

import hashlib
import hmac
import time

from rest_framework import authentication, exceptions

from api.callers import presented_api_key, signer_slug
from partners.models import Account, AccountKey

TIMESTAMP_TOLERANCE_SECONDS = 300


def _attach(request, account: Account, key: AccountKey | None) -> None:
    django_request = getattr(request, "_request", request)
    django_request.account = account
    django_request.account_key = key


class AccountKeyAuthentication(authentication.BaseAuthentication):
    """X-Service-AI-Key, Authorization: Bearer or x-api-key."""

    def authenticate(self, request):
        raw_key = presented_api_key(request)
        if raw_key is None:
            return None
        try:
            key = AccountKey.objects.get_from_key(raw_key)
        except AccountKey.DoesNotExist:
            raise exceptions.AuthenticationFailed("Unknown or revoked API key.") from None
        if key.has_expired:
            raise exceptions.AuthenticationFailed("This API key has expired.")
        _attach(request, key.account, key)
        return (None, key)

    def authenticate_header(self, request):
        return "Bearer"


def signature_matches(secret: str, body: bytes, signature: str, timestamp: str | None) -> bool:
    signed = body if timestamp is None else timestamp.encode() + b"." + body
    expected = hmac.new(secret.encode(), signed, hashlib.sha256).hexdigest()
    candidate = signature.strip().removeprefix("sha256=").lower()
    return hmac.compare_digest(expected, candidate)


def hmac_verify(account: Account, request) -> None:
    """Raise AuthenticationFailed unless x-signature is a valid HMAC of the raw body."""
    signature = request.META.get("HTTP_X_SIGNATURE", "")
    timestamp = request.META.get("HTTP_X_TIMESTAMP")
    if not signature:
        raise exceptions.AuthenticationFailed("Missing x-signature.")
    if timestamp is not None:
        try:
            skew = abs(time.time() - int(timestamp))
        except ValueError:
            raise exceptions.AuthenticationFailed("x-timestamp must be Unix seconds.") from None
        if skew > TIMESTAMP_TOLERANCE_SECONDS:
            raise exceptions.AuthenticationFailed("x-timestamp is too far from now.")
    body = getattr(request, "_request", request).body
    if not any(signature_matches(s, body, signature, timestamp) for s in account.signing_secrets()):
        raise exceptions.AuthenticationFailed("Signature does not match the request body.")


class HmacSignatureAuthentication(authentication.BaseAuthentication):
    """x-partner or x-operator naming the account, x-signature over the raw body."""

    def authenticate(self, request):
        slug = signer_slug(request)
        if slug is None or presented_api_key(request) is not None:
            return None
        account = Account.objects.filter(slug=slug).first()
        if account is None:
            raise exceptions.AuthenticationFailed("Unknown account in x-partner / x-operator.")
        hmac_verify(account, request)
        _attach(request, account, None)
        return (None, account)

    def authenticate_header(self, request):
        return "Bearer"


PUBLIC_AUTHENTICATION = [AccountKeyAuthentication, HmacSignatureAuthentication]

__all__ = [
    "PUBLIC_AUTHENTICATION",
    "AccountKeyAuthentication",
    "HmacSignatureAuthentication",
    "hmac_verify",
]
