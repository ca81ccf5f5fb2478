"""Driver app authentication: DRF tokens issued at driver login (contract 6)."""

from __future__ import annotations

from django.contrib.auth import authenticate
from django.contrib.auth.models import AnonymousUser
from django.contrib.auth.signals import user_logged_in
from rest_framework import exceptions
from rest_framework.authentication import (
    BaseAuthentication,
    TokenAuthentication,
    get_authorization_header,
)
from rest_framework.authtoken.models import Token

from api.callers import client_ip
from api.principals import DriverPrincipal
from api.problems import Problem
from drivers.api.ingest import location_credential
from drivers.tokens import driver_token_expired, driver_token_issue


class DriverTokenAuthentication(TokenAuthentication):
    """``Authorization: Token <token>``; ``Bearer <token>`` is accepted too, as apps send it.

    Returns the login and an ``api.principals.DriverPrincipal`` (the token and the login's
    driver), which DRF puts on ``request.user`` and ``request.auth``. A valid token of a
    login that is not a driver authenticates that login, and ``api.permissions.IsDriver``
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
        if driver_token_expired(token):
            raise exceptions.AuthenticationFailed("Token expired: log in again.")
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
        return user, DriverPrincipal(token=token_obj, driver=getattr(user, "driver", None))


class DriverPositionTokenAuthentication(BaseAuthentication):
    """The driver app's token on the position report, checked from the per-process cache
    of position credentials (``drivers.positions.credentials``): no database read while
    the token is remembered. ``request.auth`` is the verified
    :class:`~drivers.positions.credentials.PositionCredential`."""

    def authenticate(self, request):
        credential = location_credential(
            request.headers.get("Authorization"), address=client_ip(request)
        )
        return AnonymousUser(), credential

    def authenticate_header(self, request) -> str:
        return "Token"


def driver_login(request, *, username: str, password: str):
    """The driver's app token and the driver, for a driver's username and password;
    401 for anyone else (the same answer for an unknown user and a wrong password)."""
    http_request = getattr(request, "_request", request)
    user = authenticate(http_request, username=username, password=password)
    driver = getattr(user, "driver", None) if user is not None else None
    if driver is None:
        raise Problem(
            401,
            "unauthenticated",
            "Unknown driver or wrong password.",
            headers={"WWW-Authenticate": "Token"},
        )
    token = driver_token_issue(user=user)
    # A token login is a login: last_login moves, and the login throttle (django-axes,
    # config.logins) starts counting failures again from here, as after a page login.
    user_logged_in.send(sender=user.__class__, request=http_request, user=user)
    return token, driver
