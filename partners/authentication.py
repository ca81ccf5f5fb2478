"""API key and HMAC authentication for external accounts (contract 1.2).

Both classes set ``request.account`` (and ``request.account_key`` for keys) on the
underlying Django request so that rate limits and services can attribute the call.
A key that is presented but unknown, revoked or expired is 401, never anonymous.
"""

from __future__ import annotations

import copy
import hashlib
import hmac
import time

from django.conf import settings
from django.db.models.signals import post_delete, post_save
from django.dispatch import receiver
from rest_framework import authentication, exceptions

from api.callers import presented_api_key, signer_slug
from partners.models import Account, AccountKey

TIMESTAMP_TOLERANCE_SECONDS = 300


def _attach(request, account: Account, key: AccountKey | None) -> None:
    django_request = getattr(request, "_request", request)
    django_request.account = account
    django_request.account_key = key


# Verified keys, per process: sha256(raw key) -> (valid until, key with its account).
# Every keyed request would otherwise pay a database round trip before any real work.
# Saving or deleting a key or an account in this process empties it at once; other
# processes notice within API_KEY_CACHE_SECONDS (a revocation takes that long to reach
# every worker). 0 turns the cache off.
_verified_keys: dict[str, tuple[float, AccountKey]] = {}


def _cache_seconds() -> float:
    return float(getattr(settings, "API_KEY_CACHE_SECONDS", 10))


def account_key_lookup(raw_key: str) -> AccountKey:
    """The usable key for ``raw_key`` (a private copy); raises AccountKey.DoesNotExist."""
    ttl = _cache_seconds()
    digest = hashlib.sha256(raw_key.encode()).hexdigest()
    now = time.monotonic()
    cached = _verified_keys.get(digest) if ttl > 0 else None
    if cached is None or cached[0] < now:
        key = AccountKey.objects.get_from_key(raw_key)
        if ttl > 0:
            if len(_verified_keys) > 10_000:
                _verified_keys.clear()
            _verified_keys[digest] = (now + ttl, key)
        cached = (0.0, key)
    # A private copy: the request may change its key and account freely.
    key = copy.copy(cached[1])
    key.account = copy.copy(cached[1].account)
    return key


@receiver([post_save, post_delete], sender=AccountKey)
@receiver([post_save, post_delete], sender=Account)
def account_key_cache_clear(**kwargs) -> None:
    _verified_keys.clear()


class AccountKeyAuthentication(authentication.BaseAuthentication):
    """X-Service-AI-Key, Authorization: Bearer or x-api-key."""

    def authenticate(self, request):
        raw_key = presented_api_key(request)
        if raw_key is None:
            return None
        try:
            key = account_key_lookup(raw_key)
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
