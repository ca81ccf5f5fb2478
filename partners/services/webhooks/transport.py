"""The SSRF-safe transport of outbound webhooks (contract 5.1 SSRF rule).

A URL is checked once, its host resolved once, and the request sent over a connection to
the checked address (:class:`PinnedAddressAdapter`), so a DNS answer changed in between
(rebinding) cannot steer a delivery to loopback.
"""

from __future__ import annotations

import ipaddress
import socket
from urllib.parse import urlsplit

import requests
from django.conf import settings
from requests.adapters import HTTPAdapter


def webhook_delivery_url(base_url: str, *, path: str) -> str:
    """Where a delivery goes: the account's URL, or ``path`` under it (a base URL)."""
    if not path:
        return base_url
    return base_url.rstrip("/") + "/" + path.lstrip("/")


def webhook_url_refusal(url: str) -> str | None:
    """Why ``url`` may not be called, or None when it may (contract 5.1 SSRF rule).

    Refused: schemes other than http(s), and hosts resolving to private, loopback,
    link-local, multicast, reserved or unspecified addresses, unless the setting
    WEBHOOK_ALLOW_PRIVATE_NETWORKS is on. A host that does not resolve is not refused here
    (the attempt fails and is retried like any network error).
    """
    return webhook_address_check(url)[0]


def webhook_address_check(url: str) -> tuple[str | None, str | None]:
    """(refusal, address): why ``url`` may not be called, else the checked address that
    the delivery must connect to (None when private networks are allowed, or when the
    host did not resolve this time).

    The name is resolved once, here: a delivery that resolved it again before sending
    could be steered by a DNS answer changed in between (rebinding) to loopback.
    """
    parts = urlsplit(url)
    if parts.scheme not in {"http", "https"} or not parts.hostname:
        return "Webhook URLs must be absolute http(s) URLs.", None
    if settings.WEBHOOK_ALLOW_PRIVATE_NETWORKS:
        return None, None
    try:
        port = parts.port or (443 if parts.scheme == "https" else 80)
        infos = socket.getaddrinfo(parts.hostname, port, proto=socket.IPPROTO_TCP)
    except (socket.gaierror, ValueError, UnicodeError):
        return None, None
    addresses = []
    for info in infos:
        address = ipaddress.ip_address(str(info[4][0]).split("%", 1)[0])
        if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped:
            address = address.ipv4_mapped
        if not address.is_global or address.is_multicast:
            return f"{parts.hostname} resolves to a non-public address ({address}).", None
        addresses.append(str(address))
    return None, addresses[0] if addresses else None


class PinnedAddressAdapter(HTTPAdapter):
    """Connects to one given address whatever the URL's host name resolves to now, while
    the request still names the host (Host header, TLS SNI and certificate check)."""

    def __init__(self, address: str, **kwargs) -> None:
        self.address = address
        super().__init__(**kwargs)

    def get_connection_with_tls_context(self, request, verify, proxies=None, cert=None):
        host_params, pool_kwargs = self.build_connection_pool_key_attributes(request, verify, cert)
        if host_params["scheme"] == "https":
            hostname = urlsplit(request.url).hostname
            pool_kwargs = {**pool_kwargs, "server_hostname": hostname, "assert_hostname": hostname}
        return self.poolmanager.connection_from_host(
            host=self.address,
            port=host_params["port"],
            scheme=host_params["scheme"],
            pool_kwargs=pool_kwargs,
        )

    def add_headers(self, request, **kwargs) -> None:
        request.headers.setdefault("Host", urlsplit(request.url).netloc.rsplit("@", 1)[-1])


def webhook_post(url: str, *, address: str | None, **kwargs) -> requests.Response:
    """``requests.post``; when ``address`` is given, over a connection to that address."""
    if address is None and not settings.WEBHOOK_ALLOW_PRIVATE_NETWORKS:
        # The check could not resolve the name: resolving it again to send would take an
        # unchecked answer. A network error, retried on the schedule.
        raise requests.ConnectionError(f"{urlsplit(url).hostname} did not resolve.")
    with requests.Session() as session:
        if address is not None:
            session.trust_env = False  # a proxy would resolve the name again
            session.mount(url, PinnedAddressAdapter(address))
        return session.post(url, **kwargs)
