"""A real server and a real agent for the MCP tests.

:func:`served` starts ``uvicorn config.asgi:application`` on a free loopback port against
the test database (the tests run ``transaction=True`` so the server sees their rows), with
Django's file email backend so the test can read the sign-in code the passenger receives.
:class:`Passenger` plays the person in the browser: signs in with the emailed code and
approves the consent page. :func:`agent_session` is the official SDK client over HTTP with
its OAuth provider (discovery, dynamic registration, PKCE S256, token).
"""

from __future__ import annotations

import contextlib
import os
import re
import socket
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import parse_qs, urljoin, urlparse

import httpx2
from mcp.client.auth import OAuthClientProvider
from mcp.client.client import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.auth import (
    AuthorizationCodeResult,
    OAuthClientInformationFull,
    OAuthClientMetadata,
    OAuthToken,
)

ROOT = Path(__file__).resolve().parents[2]
REDIRECT_URI = "http://127.0.0.1:9/callback"  # never contacted: the test reads the redirect


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@dataclass
class Server:
    url: str
    mail_dir: Path
    process: subprocess.Popen

    @property
    def mcp_url(self) -> str:
        return f"{self.url}/mcp"


def _own_redis(redis_url: str) -> str:
    """A Redis database of the server's own (15), emptied: the test process flushes its
    databases between tests, and counters must not survive from an earlier run."""
    if not redis_url:
        return ""
    import redis

    own = redis_url.rsplit("/", 1)[0] + "/15" if redis_url.count("/") > 2 else redis_url + "/15"
    redis.Redis.from_url(own).flushdb()
    return own


@contextlib.contextmanager
def served(database_url: str, mail_dir: Path, *, redis_url: str = "", workers: int = 1):
    """uvicorn on the one ASGI app. With ``workers`` > 1 (and Redis for the limits, which
    must hold across processes) consecutive requests land on different processes."""
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "config.settings.local",
        "DJANGO_DEBUG": "0",
        "DATABASE_URL": database_url,
        "REDIS_URL": _own_redis(redis_url),
        "SECRET_KEY": "mcp-test-secret-key-" + "x" * 40,
        "SITE_URL": url,
        "CONNECTED_DOMAINS": url,
        "ALLOWED_HOSTS": "127.0.0.1,localhost",
        "EMAIL_BACKEND": "django.core.mail.backends.filebased.EmailBackend",
        "EMAIL_FILE_PATH": str(mail_dir),
        "CELERY_TASK_ALWAYS_EAGER": "1",
        "PRICING_CATALOGUE_CHECK_SECONDS": "0",
        "API_KEY_CACHE_SECONDS": "0",
        "LOG_LEVEL": "WARNING",
        # A connection pool per process (PostgreSQL only), for the tools' threads.
        "DATABASE_POOL": "1" if database_url.startswith("postgres") else "0",
    }
    log = open(mail_dir / "server.log", "wb")  # noqa: SIM115 - closed in finally
    process = subprocess.Popen(  # noqa: S603 - our own server, fixed arguments
        [
            sys.executable,
            "-m",
            "uvicorn",
            "config.asgi:application",
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
            "--log-level",
            "warning",
            "--workers",
            str(workers),
        ],
        cwd=ROOT,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                    break
            except OSError:
                if process.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError((mail_dir / "server.log").read_text()[-3000:]) from None
                time.sleep(0.2)
        yield Server(url=url, mail_dir=mail_dir, process=process)
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
        log.close()


def sign_in_code(mail_dir: Path, email: str) -> str:
    """The code in the newest sign-in email to ``email`` (file backend: one file per batch)."""
    for path in sorted(mail_dir.glob("*-*.log"), key=lambda p: p.stat().st_mtime, reverse=True):
        text = path.read_text()
        if f"To: {email}" in text:
            found = re.findall(r"sign-in code is (\d{6})", text)
            if found:
                return found[-1]
    raise AssertionError(f"no sign-in email to {email} in {mail_dir}")


def _hidden_inputs(html: str) -> dict[str, str]:
    fields = {}
    for tag in re.findall(r"<input[^>]*>", html):
        name = re.search(r'name="([^"]*)"', tag)
        value = re.search(r'value="([^"]*)"', tag)
        if name and 'type="hidden"' in tag:
            fields[name.group(1)] = value.group(1).replace("&amp;", "&") if value else ""
    return fields


@dataclass
class Passenger:
    """The person at the browser: signs in by emailed code and approves the agent."""

    server: Server
    email: str
    consent_pages: list[str] = field(default_factory=list)
    redirect: str = ""

    async def authorize(self, authorization_url: str) -> None:
        async with httpx2.AsyncClient(follow_redirects=False, timeout=30) as browser:
            page = await browser.get(authorization_url)
            assert page.status_code == 302, page.text[:500]
            sign_in_url = urljoin(self.server.url, page.headers["location"])
            page = await browser.get(sign_in_url)
            assert 'name="email"' in page.text
            form = _hidden_inputs(page.text)
            page = await browser.post(sign_in_url, data={**form, "email": self.email})
            assert page.status_code == 200, page.text[:500]
            assert 'name="code"' in page.text
            form = _hidden_inputs(page.text)
            code = sign_in_code(self.server.mail_dir, self.email)
            page = await browser.post(sign_in_url, data={**form, "code": code})
            assert page.status_code == 302, page.text[:500]
            consent_url = urljoin(self.server.url, page.headers["location"])
            page = await browser.get(consent_url)
            assert page.status_code == 200, page.text[:500]
            self.consent_pages.append(page.text)
            form = _hidden_inputs(page.text)
            page = await browser.post(consent_url, data={**form, "allow": "Authorize"})
            assert page.status_code == 302, page.text[:500]
            self.redirect = page.headers["location"]

    async def callback(self) -> AuthorizationCodeResult:
        query = parse_qs(urlparse(self.redirect).query)
        return AuthorizationCodeResult(
            code=query["code"][0], state=query["state"][0], iss=query.get("iss", [None])[0]
        )


class MemoryStorage:
    def __init__(self):
        self.tokens: OAuthToken | None = None
        self.client_info: OAuthClientInformationFull | None = None

    async def get_tokens(self):
        return self.tokens

    async def set_tokens(self, tokens):
        self.tokens = tokens

    async def get_client_info(self):
        return self.client_info

    async def set_client_info(self, client_info):
        self.client_info = client_info


def oauth_provider(
    server: Server, passenger: Passenger, storage: MemoryStorage
) -> OAuthClientProvider:
    return OAuthClientProvider(
        server_url=server.mcp_url,
        client_metadata=OAuthClientMetadata(
            client_name="Test Assistant",
            redirect_uris=[REDIRECT_URI],
            grant_types=["authorization_code", "refresh_token"],
            response_types=["code"],
            token_endpoint_auth_method="none",
        ),
        storage=storage,
        redirect_handler=passenger.authorize,
        callback_handler=passenger.callback,
    )


@contextlib.asynccontextmanager
async def agent_session(server: Server, passenger: Passenger, mode: str, storage: MemoryStorage):
    """The official SDK client, authorized by ``passenger``, in ``mode`` ("legacy" for the
    2025 initialize handshake, or "2026-07-28")."""
    auth = oauth_provider(server, passenger, storage)
    async with (
        httpx2.AsyncClient(auth=auth, timeout=30) as http,
        Client(streamable_http_client(server.mcp_url, http_client=http), mode=mode) as client,
    ):
        yield client
