"""agents.grants: what a bearer token presented at /mcp allows, at each edge of the rule."""

from __future__ import annotations

import datetime as dt
import hashlib

import pytest
import time_machine
from django.contrib.auth import get_user_model
from django.utils import timezone
from oauth2_provider.models import AccessToken, Application

from agents import grants
from agents.grants import agent_grant_for_token, connected_origins, mcp_resource
from agents.services import agent_authorization_revoke
from agents.tests.factories import ApplicationFactory

pytestmark = pytest.mark.django_db

MCP = "https://taxi.example/mcp"


def token(raw="raw-token", *, name="Claude (test)", user=True, **fields) -> str:
    application = ApplicationFactory(name=name)
    owner = get_user_model().objects.create_user("ada", email="Ada@Example.co.uk") if user else None
    AccessToken.objects.create(
        token="",
        token_checksum=hashlib.sha256(raw.encode()).hexdigest(),
        application=application,
        user=owner,
        expires=fields.pop("expires", timezone.now() + dt.timedelta(hours=1)),
        scope=fields.pop("scope", "quotes bookings"),
        resource=fields.pop("resource", [MCP]),
    )
    return raw


def test_a_token_gives_its_client_its_passenger_and_only_mcp_scopes():
    raw = token(scope="quotes openid")
    grant = agent_grant_for_token(raw, resource=MCP)
    application = Application.objects.get()
    assert grant.client_id == application.client_id
    assert grant.client_name == "Claude (test)"
    assert grant.passenger_email == "ada@example.co.uk"
    assert grant.scopes == {"quotes"}


def test_a_token_with_no_mcp_scope_is_no_grant():
    assert agent_grant_for_token(token(scope="openid"), resource=MCP) is None


def test_a_token_without_a_passenger_is_no_grant():
    assert agent_grant_for_token(token(user=False), resource=MCP) is None


def test_a_resource_written_with_a_trailing_slash_is_the_same_resource():
    assert agent_grant_for_token(token(resource=[f"{MCP}/"]), resource=MCP) is not None


def test_a_token_for_one_origin_is_no_grant_at_another():
    """Issue 37: the audience checked on more than one origin (every connected domain
    serves /mcp, contract 1)."""
    book = mcp_resource("https://book.example")
    raw = token(resource=[book])
    assert agent_grant_for_token(raw, resource=book) is not None
    assert agent_grant_for_token(raw, resource=MCP) is None
    assert agent_grant_for_token(raw, resource="https://book.example") is None
    Application.objects.all().delete()
    get_user_model().objects.all().delete()
    raw = token(resource=[MCP])
    assert agent_grant_for_token(raw, resource=MCP) is not None
    assert agent_grant_for_token(raw, resource=book) is None


def test_a_token_expires_at_its_expiry_exactly():
    now = timezone.now()
    raw = token(expires=now)
    with time_machine.travel(now, tick=False):
        assert agent_grant_for_token(raw, resource=MCP) is None
    with time_machine.travel(now - dt.timedelta(microseconds=1), tick=False):
        assert agent_grant_for_token(raw, resource=MCP) is not None


def test_a_long_client_name_is_cut_to_the_bookings_column_and_a_nameless_one_is_its_id():
    assert agent_grant_for_token(token(name="A" * 150), resource=MCP).client_name == "A" * 100
    Application.objects.all().delete()
    get_user_model().objects.all().delete()
    grant = agent_grant_for_token(token(name=""), resource=MCP)
    assert grant.client_name == Application.objects.get().client_id


def test_the_mcp_resource_is_the_origin_and_the_mcp_path():
    assert mcp_resource("HTTPS://Taxi.Example/some/path") == MCP
    assert mcp_resource("https://taxi.example/next?to=http://elsewhere") == MCP


def test_connected_origins_start_with_the_site_and_hold_each_origin_once(settings):
    settings.SITE_URL = "https://taxi.example/"
    settings.CONNECTED_DOMAINS = ["https://book.example/app", "HTTPS://TAXI.EXAMPLE"]
    assert connected_origins() == ["https://taxi.example", "https://book.example"]


def test_a_request_names_the_connected_domain_it_reached_else_the_site(settings):
    settings.SITE_URL = "https://taxi.example/"
    settings.CONNECTED_DOMAINS = ["https://book.example", "https://ride.example"]
    assert grants.connected_origin_for("https://book.example") == "https://book.example"
    assert grants.connected_origin_for("HTTPS://Ride.Example/mcp") == "https://ride.example"
    assert grants.connected_origin_for("https://taxi.example") == "https://taxi.example"
    # a host that is no connected domain never names itself: the site's origin instead
    assert grants.connected_origin_for("https://evil.example") == "https://taxi.example"


# --- remembered grants (issue 41: the gate answers a known token as the REST API a key) ---


@pytest.fixture
def remembering(settings):
    settings.API_KEY_CACHE_SECONDS = 10
    grants.agent_grants_forget()
    yield
    grants.agent_grants_forget()


def test_a_verified_grant_is_answered_from_memory_without_a_query(
    remembering, django_assert_num_queries
):
    raw = token()
    with pytest.raises(grants.GrantNotRemembered):
        grants.agent_grant_remembered(raw, resource=MCP)
    with django_assert_num_queries(1):
        verified = grants.agent_grant_verify(raw, resource=MCP)
    with django_assert_num_queries(0):
        assert grants.agent_grant_remembered(raw, resource=MCP) == verified
        assert grants.agent_grant_verify(raw, resource=MCP) == verified


def test_nothing_is_remembered_without_the_setting_nor_for_a_refused_token(settings):
    settings.API_KEY_CACHE_SECONDS = 0
    raw = token()
    assert grants.agent_grant_verify(raw, resource=MCP) is not None
    with pytest.raises(grants.GrantNotRemembered):
        grants.agent_grant_remembered(raw, resource=MCP)
    settings.API_KEY_CACHE_SECONDS = 10
    assert grants.agent_grant_verify("unknown-token", resource=MCP) is None
    with pytest.raises(grants.GrantNotRemembered):
        grants.agent_grant_remembered("unknown-token", resource=MCP)


def test_a_grant_remembered_at_one_origin_counts_at_no_other(remembering):
    book = "https://book.example/mcp"
    raw = token()
    assert grants.agent_grant_verify(raw, resource=MCP) is not None
    with pytest.raises(grants.GrantNotRemembered):
        grants.agent_grant_remembered(raw, resource=book)
    assert grants.agent_grant_verify(raw, resource=book) is None


def test_a_remembered_grant_ends_with_its_token(remembering):
    now = timezone.now()
    raw = token(expires=now + dt.timedelta(seconds=5))
    assert grants.agent_grant_verify(raw, resource=MCP) is not None
    with time_machine.travel(now + dt.timedelta(seconds=5), tick=False):
        with pytest.raises(grants.GrantNotRemembered):
            grants.agent_grant_remembered(raw, resource=MCP)
        assert grants.agent_grant_verify(raw, resource=MCP) is None


def test_a_revocation_in_this_process_is_seen_at_once(remembering):
    raw = token()
    grant = grants.agent_grant_verify(raw, resource=MCP)
    passenger = get_user_model().objects.get()
    application = Application.objects.get()
    assert agent_authorization_revoke(user=passenger, application_id=application.pk) == 1
    with pytest.raises(grants.GrantNotRemembered):
        grants.agent_grant_remembered(raw, resource=MCP)
    assert grants.agent_grant_verify(raw, resource=MCP) is None
    assert grant is not None
