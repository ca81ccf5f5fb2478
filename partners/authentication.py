"""API key and HMAC authentication for external accounts (contract 1.2).

Each class returns an ``api.principals.AccountPrincipal`` (the account, the key when one
was presented, the claim of a signed request), which DRF puts on ``request.auth`` so that
rate limits and services can attribute the call. A key that is presented but unknown,
revoked or expired is 401, never anonymous.

The public API's base view (``api.views.PublicAPIView``) names the key and HMAC
authenticators through the setting ``PUBLIC_API_AUTHENTICATION_CLASSES``, as DRF names its
defaults: the shared edge imports no app.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import hmac
import re
import time
from dataclasses import dataclass

from django.conf import settings
from django.db.models.signals import post_delete, post_save
from django.dispatch import receiver
from django.utils.encoding import escape_uri_path
from rest_framework import authentication, exceptions

from api.callers import presented_api_key, signer_slug
from api.principals import AccountPrincipal
from api.problems import Problem
from api.signed_once import SignedRequestReplay
from core.credential_cache import CredentialCache
from partners.models import Account, AccountKey
from partners.services.signatures import (
    SignedRequestRepeated,
    signed_request_claim,
    signed_request_forget,
    signed_request_outcome_record,
)

# Verified keys with their accounts (core.credential_cache); saving or deleting a key or
# an account in this process empties it at once.
_verified_keys: CredentialCache[AccountKey] = CredentialCache(max_entries=10_000)


def account_key_lookup(raw_key: str) -> AccountKey:
    """The usable key for ``raw_key`` (a private copy); raises AccountKey.DoesNotExist."""
    cached = _verified_keys.get(raw_key, lambda: AccountKey.objects.get_from_key(raw_key))
    # A private copy: the request may change its key and account freely.
    key = _instance_copy(cached)
    key.account = _instance_copy(cached.account)
    return key


def _instance_copy(instance):
    """What ``copy.copy`` gives for a model instance (its own ``_state`` and cache of
    related objects, ``Model.__getstate__``), without the pickling protocol's detour
    through ``__reduce_ex__``, the app registry and the version check: 5 -> 3 us a copy."""
    clone = instance.__class__.__new__(instance.__class__)
    clone.__dict__.update(instance.__getstate__())
    return clone


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
        return (None, AccountPrincipal(account=key.account, key=key))

    def authenticate_header(self, request):
        return "Bearer"


# Contract 1.2: hex HMAC-SHA256, optionally "sha256="-prefixed, any case.
SIGNATURE_PATTERN = re.compile(r"[0-9a-f]{64}")
# Unix seconds: ASCII digits only (int() would take Arabic-Indic digits), and short enough
# that no arithmetic on it overflows.
TIMESTAMP_PATTERN = re.compile(r"[0-9]{1,12}")


@dataclass(frozen=True)
class VerifiedSignature:
    """An x-signature that matched: the normalised hex, and x-timestamp when sent."""

    signature: str
    signed_at: dt.datetime | None


def signed_messages(request, timestamp: str | None) -> list[bytes]:
    """What the signature may cover (contract 1.2): the raw body, or
    ``{timestamp}.{body}``; a request without a body is signed over
    ``{timestamp}.{METHOD} {path}`` (path with its query string, if any), so a signature
    opens one resource for ``SIGNED_REQUEST_WINDOW_SECONDS`` only."""
    body = getattr(request, "_request", request).body
    if body:
        return [body if timestamp is None else timestamp.encode() + b"." + body]
    if timestamp is None:
        return []
    django_request = getattr(request, "_request", request)
    paths = dict.fromkeys(
        (django_request.get_full_path(), escape_uri_path(django_request.path), django_request.path)
    )
    return [f"{timestamp}.{django_request.method} {path}".encode() for path in paths]


def signature_matches(secret: str, message: bytes, signature: str) -> bool:
    expected = hmac.new(secret.encode(), message, hashlib.sha256).hexdigest()
    return hmac.compare_digest(expected.encode(), signature.encode())


def hmac_verify(account: Account, request) -> VerifiedSignature:
    """The verified x-signature of the request; AuthenticationFailed (401) for anything
    else, however malformed the headers (never a 5xx)."""
    signature = request.META.get("HTTP_X_SIGNATURE", "").strip().lower().removeprefix("sha256=")
    if not signature:
        raise exceptions.AuthenticationFailed("Missing x-signature.")
    if not SIGNATURE_PATTERN.fullmatch(signature):
        raise exceptions.AuthenticationFailed(
            "x-signature must be the hex HMAC-SHA256 (64 hex digits, optionally sha256=)."
        )
    timestamp = request.META.get("HTTP_X_TIMESTAMP")
    signed_at = None
    if timestamp is not None:
        timestamp = timestamp.strip()
        if not TIMESTAMP_PATTERN.fullmatch(timestamp):
            raise exceptions.AuthenticationFailed("x-timestamp must be Unix seconds.")
        if abs(time.time() - int(timestamp)) > settings.SIGNED_REQUEST_WINDOW_SECONDS:
            raise exceptions.AuthenticationFailed("x-timestamp is too far from now.")
        signed_at = dt.datetime.fromtimestamp(int(timestamp), tz=dt.UTC)
    messages = signed_messages(request, timestamp)
    if not messages:
        raise exceptions.AuthenticationFailed(
            "A request without a body is signed over '{x-timestamp}.{METHOD} {path}': "
            "send x-timestamp."
        )
    if not any(
        signature_matches(secret, message, signature)
        for secret in account.signing_secrets()
        for message in messages
    ):
        raise exceptions.AuthenticationFailed("Signature does not match the request.")
    return VerifiedSignature(signature=signature, signed_at=signed_at)


@dataclass(frozen=True)
class SignedClaim:
    """A claimed signature (``partners.services.signatures``), as the HTTP edge settles it
    (``api.principals.SignedRequestClaim``)."""

    pk: int

    def outcome_record(self, *, status: int, content_type: str, body: bytes) -> None:
        signed_request_outcome_record(
            claim_id=self.pk, status=status, content_type=content_type, body=body
        )

    def forget(self) -> None:
        signed_request_forget(claim_id=self.pk)


def signed_account_principal(request, account: Account) -> AccountPrincipal:
    """Verify the request's signature for ``account`` and claim it (good once); a repeat
    raises ``SignedRequestReplay`` with the first outcome."""
    verified = hmac_verify(account, request)
    django_request = getattr(request, "_request", request)
    try:
        claim = signed_request_claim(
            account=account,
            signature=verified.signature,
            signed_at=verified.signed_at,
            method=django_request.method,
            path=django_request.path,
        )
    except SignedRequestRepeated as repeat:
        outcome = repeat.outcome
        raise SignedRequestReplay(
            status=outcome.status, content_type=outcome.content_type, body=outcome.body
        ) from None
    return AccountPrincipal(account=account, signed_request=SignedClaim(pk=claim.pk))


class HmacSignatureAuthentication(authentication.BaseAuthentication):
    """x-partner or x-operator naming the account, x-signature over the request."""

    def authenticate(self, request):
        slug = signer_slug(request)
        if slug is None or presented_api_key(request) is not None:
            return None
        account = Account.objects.filter(slug=slug).first()
        if account is None:
            raise exceptions.AuthenticationFailed("Unknown account in x-partner / x-operator.")
        return (None, signed_account_principal(request, account))

    def authenticate_header(self, request):
        return "Bearer"


class SupplierAuthentication(authentication.BaseAuthentication):
    """``/hooks/{supplier}-booking``: the supplier named by the path, proven by its API key
    in ``x-{slug}-secret`` or by an ``x-signature`` HMAC (contract 1.2, 4.2).

    The header carries an API key of that supplier, never the signing secret: the secret
    signs webhooks and must not travel. An unknown slug is 404 before any credential is
    looked at.
    """

    def authenticate(self, request):
        slug = request.parser_context["kwargs"].get("supplier", "")
        account = Account.objects.filter(slug=slug, kind=Account.Kind.SUPPLIER).first()
        if account is None:
            raise Problem(404, "not_found", f"No supplier hook named {slug!r}.")
        presented = request.META.get(supplier_key_header(slug), "").strip()
        if presented:
            key = _supplier_key(account, presented)
            return (None, AccountPrincipal(account=account, key=key))
        if request.META.get("HTTP_X_SIGNATURE"):
            return (None, signed_account_principal(request, account))
        raise exceptions.AuthenticationFailed(f"Send x-{slug}-secret or an x-signature HMAC.")

    def authenticate_header(self, request):
        return "Bearer"


def supplier_key_header(slug: str) -> str:
    return "HTTP_X_" + slug.upper().replace("-", "_") + "_SECRET"


def _supplier_key(account: Account, raw_key: str) -> AccountKey:
    try:
        key = account_key_lookup(raw_key)
    except AccountKey.DoesNotExist:
        key = None
    if key is None or key.account_id != account.pk or key.has_expired:
        raise exceptions.AuthenticationFailed(f"Wrong x-{account.slug}-secret.")
    return key


__all__ = [
    "AccountKeyAuthentication",
    "HmacSignatureAuthentication",
    "SupplierAuthentication",
    "hmac_verify",
]
