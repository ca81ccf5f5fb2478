"""Driver app authentication: DRF tokens issued at driver login (contract 6)."""

from __future__ import annotations

from django.contrib.auth import authenticate
from django.contrib.auth.models import AnonymousUser
from rest_framework import exceptions, permissions
from rest_framework.authentication import (
    BaseAuthentication,
    TokenAuthentication,
    get_authorization_header,
)
from rest_framework.authtoken.models import Token

from api.problems import Problem
from drivers.api.ingest import location_credential


class DriverTokenAuthentication(TokenAuthentication):
    """``Authorization: Token <token>``; ``Bearer <token>`` is accepted too, as apps send it.

    Sets ``request.driver`` on the underlying request for rate limits and views. A valid
    token of a login that is not a driver authenticates that login, and ``IsDriver``
    then refuses it: 403, not 401, since asking again with the same login cannot help.
    """

    keywords = ("token", "bearer")

    # Columns read with the token (None: every column of the token, user and driver).
    fields: tuple[str, ...] | None = None

    def authenticate_credentials(self, key):
        """DRF's check, with the driver read in the same query as the token and user: a
        car reporting its position every 5 s costs one read here, not two."""
        tokens = Token.objects.select_related("user__driver")
        if self.fields is not None:
            tokens = tokens.only(*self.fields)
        try:
            token = tokens.get(key=key)
        except Token.DoesNotExist:
            raise exceptions.AuthenticationFailed("Invalid token.") from None
        if not token.user.is_active:
            raise exceptions.AuthenticationFailed("User inactive or deleted.")
        return token.user, token

    def authenticate(self, request):
        parts = get_authorization_header(request).split()
        if not parts or parts[0].decode(errors="replace").lower() not in self.keywords:
            return None
        if len(parts) != 2:
            raise exceptions.AuthenticationFailed("Authorization header must be 'Token <token>'.")
        try:
            token = parts[1].decode()
        except UnicodeError:
            raise exceptions.AuthenticationFailed("Invalid token.") from None
        user, token_obj = self.authenticate_credentials(token)
        getattr(request, "_request", request).driver = getattr(user, "driver", None)
        return user, token_obj


class DriverPositionTokenAuthentication(BaseAuthentication):
    """The driver app's token on the position report, checked from the per-process cache
    of position credentials (``drivers.positions.credentials``): no database read while
    the token is remembered. ``request.auth`` is the verified
    :class:`~drivers.positions.credentials.PositionCredential`."""

    def authenticate(self, request):
        credential = location_credential(request.headers.get("Authorization"))
        return AnonymousUser(), credential

    def authenticate_header(self, request) -> str:
        return "Token"


class IsDriver(permissions.BasePermission):
    message = "This login is not a driver's: the driver app API is for drivers."

    def has_permission(self, request, view) -> bool:
        return getattr(getattr(request, "_request", request), "driver", None) is not None


def driver_login(request, *, username: str, password: str):
    """The driver's app token and the driver, for a driver's username and password;
    401 for anyone else (the same answer for an unknown user and a wrong password)."""
    user = authenticate(getattr(request, "_request", request), username=username, password=password)
    driver = getattr(user, "driver", None) if user is not None else None
    if driver is None:
        raise Problem(
            401,
            "unauthenticated",
            "Unknown driver or wrong password.",
            headers={"WWW-Authenticate": "Token"},
        )
    token, _ = Token.objects.get_or_create(user=user)
    return token, driver
