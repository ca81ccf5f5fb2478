"""Who may use a door, declared on the view (``permission_classes``) rather than checked
by hand in its handler or again in its service (issue 38).

Each class reads the typed principal the authenticator put on ``request.auth``
(``api.principals``), so the shared edge names no domain app: account kinds are the
strings of ``partners.models.Account.Kind``, given by the view that declares them.
"""

from __future__ import annotations

from collections.abc import Iterable

from rest_framework import permissions

from api.principals import request_account, request_driver
from api.problems import Problem
from core.errors import DomainError


class IsDriver(permissions.BasePermission):
    """A driver-app token of a driver's login. No token is 401 (DRF); a valid token of a
    login that is not a driver's is 403 ``permission_denied``: asking again with the same
    login cannot help."""

    message = "This login is not a driver's: the driver app API is for drivers."

    def has_permission(self, request, view) -> bool:
        return request_driver(request) is not None


class RequiresAccountKind(permissions.BasePermission):
    """An account of one of ``kinds`` (API key or signature), for ``methods`` (every
    method when None).

    No account is 401 ``unauthenticated`` with ``hint``. An account of another kind is 401
    too: a key of another kind is as good as no key at this door (contract 1.2); unless
    the door tells the two apart with ``other_kind``, the problem code it answers them
    (``partner_not_allowed``: 403 by ``api.problems.STATUS_BY_CODE``) and its detail.

    Declared as an instance, ``RequiresAccountKind("partner", hint=...)``: DRF calls each
    entry of ``permission_classes``, and calling one gives it back.
    """

    def __init__(
        self,
        *kinds: str,
        hint: str,
        methods: Iterable[str] | None = None,
        other_kind: str = "",
        other_kind_detail: str = "",
    ) -> None:
        self.kinds = frozenset(kinds)
        self.hint = hint
        self.methods = frozenset(methods) if methods is not None else None
        self.other_kind = other_kind
        self.other_kind_detail = other_kind_detail

    def __call__(self) -> RequiresAccountKind:
        return self

    def has_permission(self, request, view) -> bool:
        if self.methods is not None and request.method not in self.methods:
            return True
        account = request_account(request)
        if account is not None and account.kind in self.kinds:
            return True
        if account is not None and self.other_kind:
            raise DomainError(self.other_kind, self.other_kind_detail)
        raise Problem(401, "unauthenticated", self.hint, headers={"WWW-Authenticate": "Bearer"})
