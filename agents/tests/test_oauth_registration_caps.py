"""OAuth hardening of issue 35: caps on what a client registers, a consent page that says
the client named itself, and metadata built from SITE_URL, never from the Host header."""

from __future__ import annotations

import asyncio

import pytest
from django.test import Client
from oauth2_provider.models import Application

from agents.mcp import gate
from agents.services import (
    OAUTH_CLIENT_NAME_MAX_CHARS,
    OAUTH_CLIENT_REDIRECT_URIS_MAX,
    passenger_user_get_or_create,
)
from agents.tests.factories import ApplicationFactory
from agents.tests.test_oauth import REDIRECT, _authorize_query

pytestmark = pytest.mark.django_db

SITE = "https://taxi.example"  # SITE_URL in config.settings.test


@pytest.fixture
def browser(settings) -> Client:
    settings.SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    return Client(HTTP_HOST="taxi.example", HTTP_X_FORWARDED_PROTO="https")


def register(browser, **metadata):
    body = {"redirect_uris": [REDIRECT], "token_endpoint_auth_method": "none", **metadata}
    return browser.post("/oauth/register/", data=body, content_type="application/json")


@pytest.mark.parametrize(
    ("metadata", "error"),
    [
        (
            {"client_name": "Many", "redirect_uris": [f"{REDIRECT}/{n}" for n in range(3000)]},
            "invalid_redirect_uri",
        ),
        (
            {
                "client_name": "Eleven",
                "redirect_uris": [
                    f"{REDIRECT}/{n}" for n in range(OAUTH_CLIENT_REDIRECT_URIS_MAX + 1)
                ],
            },
            "invalid_redirect_uri",
        ),
        (
            {"client_name": "Long", "redirect_uris": [REDIRECT + "/" + "a" * 600]},
            "invalid_redirect_uri",
        ),
        ({"client_name": "C" * (OAUTH_CLIENT_NAME_MAX_CHARS + 1)}, "invalid_client_metadata"),
        ({"client_name": "Claude\nOfficial"}, "invalid_client_metadata"),
        ({"client_name": "Claude \u202eedoc"}, "invalid_client_metadata"),  # right-to-left override
        ({"client_name": "Claude\u200b"}, "invalid_client_metadata"),  # zero-width space
        ({"client_name": " Claude"}, "invalid_client_metadata"),
        ({"client_name": 42}, "invalid_client_metadata"),
        (
            {"client_name": "Fine", "client_uri": "https://a.example/" + "x" * 3000},
            "invalid_client_metadata",
        ),
        ({"client_name": "Fine", **{f"x_{n}": n for n in range(30)}}, "invalid_client_metadata"),
    ],
    ids=[
        "3000-redirects",
        "11-redirects",
        "600-char-redirect",
        "81-char-name",
        "newline-in-name",
        "bidi-override",
        "zero-width",
        "leading-space",
        "name-not-text",
        "huge-client-uri",
        "30-fields",
    ],
)
def test_registration_beyond_the_caps_is_a_clear_400(browser, metadata, error):
    response = register(browser, **metadata)
    assert response.status_code == 400, response.content[:300]
    assert response.json()["error"] == error
    assert response.json()["error_description"]
    assert Application.objects.count() == 0


def test_registration_at_the_caps_is_taken(browser):
    response = register(
        browser,
        client_name="Ç" * OAUTH_CLIENT_NAME_MAX_CHARS,
        redirect_uris=[f"{REDIRECT}/{n}" for n in range(OAUTH_CLIENT_REDIRECT_URIS_MAX)],
    )
    assert response.status_code == 201, response.content


def test_a_real_clients_name_with_punctuation_and_spaces_is_taken(browser):
    assert register(browser, client_name="Claude Desktop (Mac) — v1.2").status_code == 201


def test_the_consent_page_says_the_client_named_itself(browser):
    application = ApplicationFactory(redirect_uris=REDIRECT, name="Claude")
    browser.force_login(passenger_user_get_or_create(email="ada@example.co.uk"))
    page = browser.get(_authorize_query(application)).content.decode()
    assert 'It calls itself &ldquo;<span id="client-name">Claude</span>&rdquo;' in page
    assert "this name is not verified" in page
    # The name is not the page's own heading or title: the service does not vouch for it.
    assert "<title>Allow Claude" not in page
    assert "<h1>Allow this assistant to act for you?</h1>" in page


@pytest.mark.parametrize("host", ["localhost", "127.0.0.1"])
def test_the_metadata_names_site_url_whatever_host_reached_it(host):
    """Issue 35: on the mcp process the authorization server was named from the Host
    header. A Host that ALLOWED_HOSTS lets in but that is not a connected domain (the
    process's own address behind the proxy) names nothing."""
    client = Client(HTTP_HOST=host)
    server = client.get("/.well-known/oauth-authorization-server").json()
    assert server["issuer"] == SITE
    for key in ("authorization_endpoint", "token_endpoint", "registration_endpoint"):
        assert server[key].startswith(SITE + "/"), server[key]
    resource = client.get("/.well-known/oauth-protected-resource/mcp").json()
    assert resource["authorization_servers"] == [SITE]
    assert resource["resource"] == f"{SITE}/mcp"


def test_at_another_connected_domain_the_resource_is_that_domains(browser):
    client = Client(HTTP_HOST="book.example", HTTP_X_FORWARDED_PROTO="https")
    resource = client.get("/.well-known/oauth-protected-resource/mcp").json()
    assert resource["resource"] == "https://book.example/mcp"
    assert resource["authorization_servers"] == [SITE]


def test_the_mcp_doors_401_points_at_metadata_under_site_url():
    sent: list = []
    scope = {
        "type": "http",
        "method": "POST",
        "scheme": "http",
        "path": "/mcp",
        "query_string": b"",
        "headers": [(b"host", b"127.0.0.1:8002"), (b"content-type", b"application/json")],
    }

    async def receive():
        return {"type": "http.request", "body": b"{}", "more_body": False}

    async def send(message):
        sent.append(message)

    async def sdk(scope, receive, send):  # never reached without a token
        raise AssertionError

    asyncio.run(gate.MCPGate(sdk)(scope, receive, send))
    headers = dict(sent[0]["headers"])
    assert sent[0]["status"] == 401
    assert headers[b"www-authenticate"].decode() == (
        f'Bearer resource_metadata="{SITE}/.well-known/oauth-protected-resource/mcp"'
    )
