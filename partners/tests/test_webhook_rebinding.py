"""Webhook delivery connects to the address it checked (contract 5.1: DNS rebinding)."""

from __future__ import annotations

import json
import socket
import threading
from http.server import BaseHTTPRequestHandler, HTTPServer

import pytest
import requests
from django.conf import settings
from django.test import override_settings

from bookings.models import Booking
from partners.models import WebhookDelivery
from partners.services import webhooks
from partners.tests.factories import partner_job

pytestmark = pytest.mark.django_db

PUBLIC = "1.1.1.1"  # public to the SSRF check, unreachable from the test machine


@pytest.fixture
def loopback_receiver():
    """A receiver on loopback that records every request it gets."""
    received: list[dict] = []

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self):  # noqa: N802
            length = int(self.headers.get("Content-Length", 0))
            received.append({"host": self.headers["Host"], "body": self.rfile.read(length)})
            self.send_response(204)
            self.end_headers()

        def log_message(self, *args):
            pass

    server = HTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server.server_address[1], received
    server.shutdown()
    server.server_close()


@pytest.fixture
def rebinding_dns(monkeypatch):
    """rebind.example answers a public address and loopback in turn (a TTL of 0)."""
    lookups: list[str] = []
    resolve = socket.getaddrinfo  # the test suite's loopback-only resolver

    def rebinding(host, port, *args, **kwargs):
        if host != "rebind.example":
            return resolve(host, port, *args, **kwargs)
        lookups.append(host)
        address = PUBLIC if len(lookups) % 2 else "127.0.0.1"
        return [(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP, "", (address, port))]

    monkeypatch.setattr(socket, "getaddrinfo", rebinding)
    return lookups


@override_settings(WEBHOOK_ALLOW_PRIVATE_NETWORKS=False)
def test_a_dns_answer_changed_after_the_check_never_reaches_loopback(
    api_client,
    make_account,
    loopback_receiver,
    rebinding_dns,
    monkeypatch,
    django_capture_on_commit_callbacks,
):
    """Issue 13: "Webhook delivery resolves the host twice: a DNS answer that changes
    between the SSRF check and the send reaches loopback"."""
    port, received = loopback_receiver
    monkeypatch.setattr(webhooks.attempts, "WEBHOOK_CONNECT_TIMEOUT_SECONDS", 1)
    monkeypatch.setattr(settings, "WEBHOOK_READ_TIMEOUT_SECONDS", 1)
    partner = make_account(
        "partner", name="Rebinder", webhook_url=f"http://rebind.example:{port}/hook"
    )
    api_client.credentials(HTTP_X_API_KEY=partner.raw_key)

    with django_capture_on_commit_callbacks(execute=True):
        response = api_client.post(
            "/api/public/v1/jobs", data=json.dumps(partner_job()), content_type="application/json"
        )

    assert response.status_code == 200
    booking = Booking.objects.get(account=partner)
    delivery = WebhookDelivery.objects.get(booking=booking, event_type="booking.created")
    assert received == []  # loopback never saw a webhook
    attempt = delivery.attempts.get()
    assert attempt.status_code is None
    assert "ConnectionError" in attempt.error  # it went to the public address, unreachable


def test_a_pinned_post_names_the_host_but_connects_to_the_given_address(loopback_receiver):
    port, received = loopback_receiver
    # hooks.example resolves to nothing in tests: only the pinned address can be reached.
    response = webhooks.webhook_post(
        f"http://hooks.example:{port}/hook",
        address="127.0.0.1",
        data=b'{"ok": true}',
        headers={"Content-Type": "application/json"},
        timeout=(2, 2),
        allow_redirects=False,
    )
    assert response.status_code == 204
    assert received == [{"host": f"hooks.example:{port}", "body": b'{"ok": true}'}]


def test_a_pinned_https_connection_still_checks_the_certificate_of_the_host_name():
    adapter = webhooks.PinnedAddressAdapter(PUBLIC)
    request = requests.Request("POST", "https://hooks.example/hook").prepare()
    pool = adapter.get_connection_with_tls_context(request, True)
    assert (pool.host, pool.port) == (PUBLIC, 443)
    assert pool.conn_kw["server_hostname"] == "hooks.example"  # SNI
    assert pool.assert_hostname == "hooks.example"
    assert pool.cert_reqs == "CERT_REQUIRED"


@override_settings(WEBHOOK_ALLOW_PRIVATE_NETWORKS=False)
def test_a_name_that_did_not_resolve_for_the_check_is_not_resolved_again_to_send(
    loopback_receiver, monkeypatch
):
    port, received = loopback_receiver
    answers = iter([socket.gaierror("no answer"), "127.0.0.1"])
    resolve = socket.getaddrinfo

    def flaky(host, port, *args, **kwargs):
        if host != "flaky.example":
            return resolve(host, port, *args, **kwargs)
        answer = next(answers)
        if isinstance(answer, Exception):
            raise answer
        return [(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP, "", (answer, port))]

    monkeypatch.setattr(socket, "getaddrinfo", flaky)
    url = f"http://flaky.example:{port}/hook"
    refusal, address = webhooks.webhook_address_check(url)
    assert (refusal, address) == (None, None)
    with pytest.raises(requests.ConnectionError):
        webhooks.webhook_post(url, address=address, data=b"{}", timeout=(1, 1))
    assert received == []
