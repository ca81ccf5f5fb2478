"""Who authenticated an HTTP request, as DRF's public ``request.auth`` carries it.

An authenticator returns ``(user, principal)``: DRF puts the principal on ``request.auth``
(and the user, when there is one, on ``request.user``), so nothing is hung on the
framework's private request. The edge reads the principal to build a ``core.callers.Caller``
for the services; services never see it.

The edge imports no domain app, so the records are typed loosely here: ``account`` is a
``partners.models.Account``, ``key`` a ``partners.models.AccountKey``, ``driver`` a
``drivers.models.Driver`` and ``token`` a DRF ``Token``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol


class SignedRequestClaim(Protocol):
    """The claim that makes a signed request good once (contract 1.2), made by the
    authenticator that verified the signature; the HTTP edge settles it with the request's
    outcome (``api.signed_once.SignedOnceMixin``)."""

    pk: int

    def outcome_record(self, *, status: int, content_type: str, body: bytes) -> None: ...

    def forget(self) -> None: ...


@dataclass(frozen=True)
class AccountPrincipal:
    """An external account, proven by one of its API keys (``key``) or by an HMAC
    signature (``signed_request``: the claim that makes the signed request good once)."""

    account: Any
    key: Any = None
    signed_request: SignedRequestClaim | None = None


@dataclass(frozen=True)
class DriverPrincipal:
    """A driver-app token's login; ``driver`` is None when the login is not a driver's
    (``IsDriver`` then refuses it)."""

    token: Any
    driver: Any = None


def request_account_principal(request) -> AccountPrincipal | None:
    """The account principal of an authenticated DRF request; None for anyone else
    (anonymous, a driver, or a plain Django request such as a page)."""
    principal = getattr(request, "auth", None)
    return principal if isinstance(principal, AccountPrincipal) else None


def request_account(request) -> Any:
    """The authenticated account of ``request``, or None."""
    principal = request_account_principal(request)
    return principal.account if principal is not None else None


def request_driver(request) -> Any:
    """The driver of a driver-app request, or None."""
    principal = getattr(request, "auth", None)
    return principal.driver if isinstance(principal, DriverPrincipal) else None
