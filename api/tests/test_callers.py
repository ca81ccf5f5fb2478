"""Who is calling: the client address behind trusted reverse proxies."""

import pytest
from django.test import RequestFactory, override_settings

from api.callers import client_ip
from api.tests.assertions import assert_problem

CLIENT = "203.0.113.7"


def ip_of(remote: str, forwarded: str | None = None) -> str:
    extra = {"HTTP_X_FORWARDED_FOR": forwarded} if forwarded is not None else {}
    return client_ip(RequestFactory().get("/", REMOTE_ADDR=remote, **extra))


def test_without_trusted_proxies_forwarded_for_is_ignored():
    # Nothing in front of the app overwrites the header, so the client wrote it.
    assert ip_of("198.51.100.9", "1.1.1.1") == "198.51.100.9"


@override_settings(TRUSTED_PROXY_COUNT=1)
def test_one_trusted_hop_gives_the_address_our_proxy_saw():
    # A forged leftmost entry is ignored: only what our proxy appended is believed.
    assert ip_of("10.0.0.5", f"6.6.6.6, {CLIENT}") == CLIENT
    assert ip_of("10.0.0.5", CLIENT) == CLIENT
    # A request that reached the app without the proxy has nothing to believe but the peer.
    assert ip_of("10.0.0.5") == "10.0.0.5"


@override_settings(TRUSTED_PROXY_COUNT=2)
def test_two_trusted_hops():
    assert ip_of("10.0.0.5", f"6.6.6.6, {CLIENT}, 10.1.1.1") == CLIENT


@override_settings(TRUSTED_PROXIES=["10.0.0.0/8", "fd00::/8"])
def test_trusted_proxy_networks_are_skipped_from_the_right():
    assert ip_of("10.0.0.5", f"6.6.6.6, {CLIENT}, 10.9.9.9") == CLIENT
    assert ip_of("fd00::1", CLIENT) == CLIENT
    # A peer outside the trusted networks is the client, whatever it forwards.
    assert ip_of("198.51.100.9", CLIENT) == "198.51.100.9"
    # Garbage in the header is never mistaken for a proxy.
    assert ip_of("10.0.0.5", f"{CLIENT}, not-an-ip") == "not-an-ip"


@pytest.mark.django_db
@pytest.mark.urls("api.tests.urls")
@override_settings(TRUSTED_PROXY_COUNT=1, RATELIMITS={"probe": "1/h"})
def test_behind_the_proxy_each_anonymous_caller_has_its_own_bucket(client):
    """Issue 13: "Behind the production proxy every anonymous caller shares one IP bucket
    (30 quotes an hour for everyone); there is no trusted-proxy setting"."""

    def get(address: str):
        return client.get("/api/probe", REMOTE_ADDR="10.0.0.5", HTTP_X_FORWARDED_FOR=address)

    assert get("203.0.113.1").status_code == 200
    assert_problem(get("203.0.113.1"), 429, "rate_limited")
    assert get("203.0.113.2").status_code == 200
