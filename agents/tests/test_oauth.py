"""OAuth 2.1 for agents, in process: metadata, registration, email sign-in, consent,
PKCE, the token's resource binding, and the passenger's list of authorized agents."""

from __future__ import annotations

import base64
import hashlib
import re
from urllib.parse import parse_qs, urlencode, urlparse

import pytest
from django.core import mail
from django.test import Client
from oauth2_provider.models import AccessToken, Application

from agents.grants import agent_grant_for_token
from agents.models import SignInCode
from agents.services import passenger_user_get_or_create
from agents.tests.factories import ApplicationFactory

pytestmark = pytest.mark.django_db

ORIGIN = "https://taxi.example"
MCP = f"{ORIGIN}/mcp"
REDIRECT = "http://127.0.0.1/callback"
EMAIL = "grace.hopper@example.co.uk"
VERIFIER = "v" * 64
CHALLENGE = (
    base64.urlsafe_b64encode(hashlib.sha256(VERIFIER.encode()).digest()).rstrip(b"=").decode()
)


@pytest.fixture
def browser(settings) -> Client:
    # As behind the production proxy: https at the connected domain.
    settings.SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    return Client(HTTP_HOST="taxi.example", HTTP_X_FORWARDED_PROTO="https")


@pytest.fixture
def application() -> Application:
    return ApplicationFactory(redirect_uris=REDIRECT)


def _authorize_query(application, **overrides) -> str:
    params = {
        "response_type": "code",
        "client_id": application.client_id,
        "redirect_uri": REDIRECT,
        "state": "s-123",
        "code_challenge": CHALLENGE,
        "code_challenge_method": "S256",
        "scope": "quotes bookings",
        "resource": MCP,
        **overrides,
    }
    return "/oauth/authorize/?" + urlencode({k: v for k, v in params.items() if v is not None})


def _code_in(message) -> str:
    return re.search(r"\b(\d{6})\b", message.body).group(1)


def test_metadata_documents_advertise_pkce_s256_registration_and_iss(browser):
    server = browser.get("/.well-known/oauth-authorization-server").json()
    assert server["issuer"] == ORIGIN
    assert server["code_challenge_methods_supported"] == ["S256"]
    assert server["registration_endpoint"] == f"{ORIGIN}/oauth/register/"
    assert server["client_id_metadata_document_supported"] is True
    assert server["authorization_response_iss_parameter_supported"] is True
    assert "implicit" not in server["grant_types_supported"]
    assert "password" not in server["grant_types_supported"]
    assert set(server["scopes_supported"]) == {"quotes", "bookings"}
    for path in (
        "/.well-known/oauth-protected-resource",
        "/.well-known/oauth-protected-resource/mcp",
    ):
        resource = browser.get(path).json()
        assert resource["resource"] == MCP
        assert resource["authorization_servers"] == [ORIGIN]


def test_a_client_registers_itself(browser):
    response = browser.post(
        "/oauth/register/",
        data={
            "client_name": "Some Agent",
            "redirect_uris": [REDIRECT],
            "grant_types": ["authorization_code", "refresh_token"],
            "token_endpoint_auth_method": "none",
        },
        content_type="application/json",
    )
    assert response.status_code == 201, response.content
    assert Application.objects.get(client_id=response.json()["client_id"]).name == "Some Agent"


def test_sign_in_emails_a_six_digit_code_that_signs_the_passenger_in(browser, application):
    authorize = _authorize_query(application)
    response = browser.get(authorize)
    assert response.status_code == 302
    sign_in = response["Location"]

    page = browser.get(sign_in)
    assert b'name="email"' in page.content
    page = browser.post(sign_in, {"email": EMAIL, "next": authorize})
    assert b'name="code"' in page.content
    assert len(mail.outbox) == 1
    assert mail.outbox[0].to == [EMAIL]

    response = browser.post(sign_in, {"code": _code_in(mail.outbox[0]), "next": authorize})
    assert response.status_code == 302
    assert response["Location"] == authorize
    consent = browser.get(authorize)
    assert b"Claude (test)" in consent.content
    assert b"quotes" in consent.content
    assert b"bookings" in consent.content


def test_a_wrong_code_counts_and_five_wrong_codes_lock_it(browser):
    browser.post("/agents/sign-in/", {"email": EMAIL})
    code = _code_in(mail.outbox[0])
    wrong = "000000" if code != "000000" else "111111"
    for _ in range(5):
        assert browser.post("/agents/sign-in/", {"code": wrong}).status_code == 400
    assert SignInCode.objects.get(email=EMAIL).attempts == 5
    assert browser.post("/agents/sign-in/", {"code": code}).status_code == 400


def test_a_disposable_address_gets_no_code(browser):
    page = browser.post("/agents/sign-in/", {"email": "someone@mailinator.com"})
    assert page.status_code == 400
    assert mail.outbox == []


def _consent_and_code(browser, application, **overrides):
    browser.force_login(passenger_user_get_or_create(email=EMAIL))
    page = browser.get(_authorize_query(application, **overrides))
    if page.status_code != 200:
        return page
    hidden = dict(
        re.findall(r'<input type="hidden" name="([^"]+)" value="([^"]*)"', page.content.decode())
    )
    return browser.post(
        _authorize_query(application, **overrides), {**hidden, "allow": "Authorize"}
    )


def test_consent_then_token_bound_to_the_mcp_resource(browser, application):
    response = _consent_and_code(browser, application)
    assert response.status_code == 302
    redirect = parse_qs(urlparse(response["Location"]).query)
    assert redirect["state"] == ["s-123"]
    assert redirect["iss"] == [ORIGIN]  # RFC 9207

    token = browser.post(
        "/oauth/token/",
        {
            "grant_type": "authorization_code",
            "code": redirect["code"][0],
            "redirect_uri": REDIRECT,
            "client_id": application.client_id,
            "code_verifier": VERIFIER,
            "resource": MCP,
        },
    )
    assert token.status_code == 200, token.content
    raw = token.json()["access_token"]
    stored = AccessToken.objects.get()
    assert stored.token == ""  # RFC 9700: stored hashed only
    assert stored.resource == [MCP]
    grant = agent_grant_for_token(raw, resource=MCP)
    assert grant.client_name == "Claude (test)"
    assert grant.passenger_email == EMAIL
    assert grant.scopes == {"quotes", "bookings"}


@pytest.mark.parametrize(
    "overrides",
    [
        {"code_challenge_method": "plain", "code_challenge": VERIFIER},
        {"code_challenge": None, "code_challenge_method": None},
    ],
)
def test_authorization_needs_pkce_s256(browser, application, overrides):
    response = _consent_and_code(browser, application, **overrides)
    location = response.get("Location", "")
    assert "code=" not in location
    assert "error=" in location or response.status_code >= 400


def test_a_token_for_another_resource_is_no_grant(browser, application):
    response = _consent_and_code(browser, application, resource=f"{ORIGIN}/api")
    code = parse_qs(urlparse(response["Location"]).query)["code"][0]
    token = browser.post(
        "/oauth/token/",
        {
            "grant_type": "authorization_code",
            "code": code,
            "redirect_uri": REDIRECT,
            "client_id": application.client_id,
            "code_verifier": VERIFIER,
        },
    )
    assert agent_grant_for_token(token.json()["access_token"], resource=MCP) is None


def test_a_token_issued_for_no_resource_is_no_grant(browser, application):
    # Given a token the passenger consented to without any resource named (RFC 8707)
    response = _consent_and_code(browser, application, resource=None)
    code = parse_qs(urlparse(response["Location"]).query)["code"][0]
    token = browser.post(
        "/oauth/token/",
        {
            "grant_type": "authorization_code",
            "code": code,
            "redirect_uri": REDIRECT,
            "client_id": application.client_id,
            "code_verifier": VERIFIER,
        },
    )
    assert token.status_code == 200, token.content
    assert not AccessToken.objects.get().resource

    # Then it is no grant at /mcp: a token must name the MCP server to count there
    assert agent_grant_for_token(token.json()["access_token"], resource=MCP) is None


def test_the_passenger_sees_and_revokes_authorized_agents(browser, application):
    response = _consent_and_code(browser, application)
    code = parse_qs(urlparse(response["Location"]).query)["code"][0]
    raw = browser.post(
        "/oauth/token/",
        {
            "grant_type": "authorization_code",
            "code": code,
            "redirect_uri": REDIRECT,
            "client_id": application.client_id,
            "code_verifier": VERIFIER,
            "resource": MCP,
        },
    ).json()["access_token"]

    page = browser.get("/agents/")
    assert b"Claude (test)" in page.content
    browser.post("/agents/", {"application": application.pk})

    assert agent_grant_for_token(raw, resource=MCP) is None
    assert b"Claude (test)" not in browser.get("/agents/").content


class DocumentFetcher:
    """Serves one client ID metadata document (tests never reach the internet; the real
    fetcher is django-oauth-toolkit's SSRF-hardened HTTPS client)."""

    def fetch(self, client_id):
        return (
            {
                "client_id": client_id,
                "client_name": "Document Agent",
                "redirect_uris": [REDIRECT],
                "grant_types": ["authorization_code"],
                "token_endpoint_auth_method": "none",
            },
            3600,
        )


def test_a_client_id_metadata_document_is_a_client(browser, settings):
    settings.OAUTH2_PROVIDER = {
        **settings.OAUTH2_PROVIDER,
        "CIMD_METADATA_FETCHER": "agents.tests.test_oauth.DocumentFetcher",
    }
    client_id = "https://agent.example/oauth/client.json"
    browser.force_login(passenger_user_get_or_create(email=EMAIL))
    page = browser.get(_authorize_query(Application(client_id=client_id)))
    assert page.status_code == 200, page.content
    assert b"Document Agent" in page.content
    assert Application.objects.get(client_id=client_id).name == "Document Agent"


def test_registrations_are_limited_per_client_ip(browser, settings):
    settings.RATELIMITS = {**settings.RATELIMITS, "oauth_register": "2/h"}
    body = {
        "client_name": "Spam",
        "redirect_uris": [REDIRECT],
        "token_endpoint_auth_method": "none",
    }
    statuses = [
        browser.post("/oauth/register/", data=body, content_type="application/json").status_code
        for _ in range(3)
    ]
    assert statuses == [201, 201, 429]
    assert Application.objects.filter(name="Spam").count() == 2


@pytest.mark.parametrize(
    ("metadata", "error"),
    [
        ({"redirect_uris": ["http://evil.example/cb"]}, "invalid_redirect_uri"),
        ({"redirect_uris": ["http://127.0.0.1.evil.example/cb"]}, "invalid_redirect_uri"),
        ({"grant_types": ["password"]}, "invalid_client_metadata"),
        ({"grant_types": ["implicit"]}, "invalid_client_metadata"),
        ({"grant_types": ["client_credentials"]}, "invalid_client_metadata"),
        ({"grant_types": ["authorization_code", "implicit"]}, "invalid_client_metadata"),
        ({"response_types": ["token"]}, "invalid_client_metadata"),
    ],
)
def test_registration_refuses_plain_http_off_loopback_and_other_grants(browser, metadata, error):
    """Finding (issue 24): "Client registration accepts a plain-http non-loopback redirect
    URI and the `password`, `implicit` and `client_credentials` grant types." """
    body = {
        "client_name": "Hostile",
        "redirect_uris": [REDIRECT],
        "token_endpoint_auth_method": "none",
        **metadata,
    }
    response = browser.post("/oauth/register/", data=body, content_type="application/json")
    assert (response.status_code, response.json()["error"]) == (400, error)
    assert not Application.objects.filter(name="Hostile").exists()


@pytest.mark.parametrize(
    "redirect",
    [
        "https://agent.example/cb",
        "http://127.0.0.1:33418/cb",
        "http://[::1]/cb",
        "http://localhost/cb",
    ],
)
def test_registration_accepts_https_and_loopback_redirects(browser, redirect):
    body = {
        "client_name": "Fine",
        "redirect_uris": [redirect],
        "token_endpoint_auth_method": "none",
    }
    response = browser.post("/oauth/register/", data=body, content_type="application/json")
    assert response.status_code == 201, response.content


@pytest.mark.parametrize(
    "overrides",
    [{"client_id": "no-such-client"}, {"redirect_uri": "https://elsewhere.example/cb"}],
    ids=["unknown-client", "unregistered-redirect"],
)
def test_authorize_with_an_unknown_client_or_redirect_is_an_error_page_not_a_500(
    browser, application, overrides
):
    """Finding (issue 24): "`GET /oauth/authorize/` by a signed-in passenger with an unknown
    `client_id` or an unregistered `redirect_uri`: 500 (the template reads the application
    outside its guard)." """
    from agents.services import passenger_user_get_or_create

    browser.force_login(passenger_user_get_or_create(email=EMAIL))
    browser.raise_request_exception = False
    response = browser.get(_authorize_query(application, **overrides))
    assert response.status_code == 400
    assert b"This request cannot be completed" in response.content
