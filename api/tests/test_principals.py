"""Authenticators hand the caller to DRF as a typed principal on ``request.auth``, and hang
nothing on the underlying Django request."""

import hashlib
import hmac
import json

import pytest
from rest_framework.authtoken.models import Token
from rest_framework.request import Request
from rest_framework.test import APIRequestFactory

from api.principals import AccountPrincipal, DriverPrincipal
from driverapp.api.authentication import DriverTokenAuthentication
from drivers.tests.factories import DriverFactory, UserFactory
from partners.authentication import AccountKeyAuthentication, HmacSignatureAuthentication
from partners.models import AccountKey

pytestmark = pytest.mark.django_db

DJANGO_REQUEST_ATTRIBUTES = ("account", "account_key", "driver", "signed_request")


def _authenticated(django_request, authenticator) -> Request:
    request = Request(django_request, authenticators=[authenticator])
    request.user  # noqa: B018  (DRF authenticates lazily)
    return request


def test_an_api_key_gives_an_account_principal_with_its_key(make_account):
    # Given an account's key in the request
    account = make_account("partner", name="Acme Rides")
    django_request = APIRequestFactory().get("/", HTTP_X_API_KEY=account.raw_key)
    # When the key authenticator runs
    request = _authenticated(django_request, AccountKeyAuthentication())
    # Then request.auth is the frozen principal, and the Django request carries nothing
    assert isinstance(request.auth, AccountPrincipal)
    assert request.auth.account.pk == account.pk
    assert request.auth.key.pk == AccountKey.objects.get(account=account).pk
    assert request.auth.signed_request is None
    for name in DJANGO_REQUEST_ATTRIBUTES:
        assert not hasattr(django_request, name)
    with pytest.raises(AttributeError):
        request.auth.account = None


def test_a_signature_gives_a_principal_with_its_claim(make_account):
    account = make_account("partner", name="Signer")
    body = json.dumps({"name": "x"}).encode()
    signature = hmac.new(account.signing_secret.encode(), body, hashlib.sha256).hexdigest()
    django_request = APIRequestFactory().post(
        "/", data=body, content_type="application/json",
        HTTP_X_PARTNER=account.slug, HTTP_X_SIGNATURE=signature,
    )  # fmt: skip
    request = _authenticated(django_request, HmacSignatureAuthentication())
    assert request.auth.account.pk == account.pk
    assert request.auth.key is None
    assert request.auth.signed_request is not None
    for name in DJANGO_REQUEST_ATTRIBUTES:
        assert not hasattr(django_request, name)


def test_a_driver_token_gives_the_login_and_a_driver_principal():
    driver = DriverFactory(user=UserFactory())
    token = Token.objects.create(user=driver.user)
    django_request = APIRequestFactory().get("/", HTTP_AUTHORIZATION=f"Token {token.key}")
    request = _authenticated(django_request, DriverTokenAuthentication())
    assert request.user == driver.user
    assert request.auth == DriverPrincipal(token=token, driver=driver)
    assert not hasattr(django_request, "driver")
