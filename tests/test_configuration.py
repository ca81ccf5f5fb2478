"""The configurations of contract section 10: what runs with no environment at all."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def setting_under(module: str, name: str, **environ: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in {"SECRET_KEY", "DATABASE_URL"}}
    env.update(environ, DJANGO_SETTINGS_MODULE=module)
    return subprocess.run(
        [sys.executable, "-c", f"from django.conf import settings; print(settings.{name})"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )


def test_local_configuration_makes_and_keeps_its_own_random_secret_key(tmp_path):
    """Issue 13: "With no environment, `SECRET_KEY` is a constant in `base.py`: signed
    job-card links can be forged"."""
    kept = tmp_path / "secret"
    first = setting_under("config.settings.local", "SECRET_KEY", SECRET_KEY_FILE=str(kept))
    again = setting_under("config.settings.local", "SECRET_KEY", SECRET_KEY_FILE=str(kept))
    other = setting_under(
        "config.settings.local", "SECRET_KEY", SECRET_KEY_FILE=str(tmp_path / "other")
    )

    key = first.stdout.strip()
    assert len(key) >= 50, first.stderr
    assert again.stdout.strip() == key  # kept across restarts: signed links stay valid
    assert other.stdout.strip() not in {"", key}  # each checkout has its own
    assert kept.read_text().strip() == key
    assert kept.stat().st_mode & 0o077 == 0  # readable by its owner only


def test_production_configuration_refuses_to_start_without_a_secret_key():
    result = setting_under("config.settings.production", "SECRET_KEY")
    assert result.returncode != 0
    assert "SECRET_KEY" in result.stderr


def test_an_explicit_secret_key_wins_and_writes_no_file(tmp_path):
    kept = tmp_path / "secret"
    result = setting_under(
        "config.settings.local",
        "SECRET_KEY",
        SECRET_KEY="from-the-environment",
        SECRET_KEY_FILE=str(kept),
    )
    assert result.stdout.strip() == "from-the-environment"
    assert not kept.exists()


def test_only_the_local_configuration_lets_seed_demo_create_a_back_office_user():
    """Issue 13: "`seed_demo` creates an `admin`/`admin` superuser under any settings"."""
    name = "SEED_DEMO_BACK_OFFICE_USER"
    local = setting_under("config.settings.local", name, SECRET_KEY="x")
    production = setting_under("config.settings.production", name, SECRET_KEY="x")
    assert local.stdout.strip() == "True", local.stderr
    assert production.stdout.strip() == "False", production.stderr


def _web_command_config(trusted_proxies: str | None) -> str:
    """The Procfile's web command, as a process manager would run it, asked to print the
    configuration gunicorn would serve with (nothing is served)."""
    [web] = [
        line for line in (ROOT / "Procfile").read_text().splitlines() if line.startswith("web:")
    ]
    env = {
        k: v for k, v in os.environ.items() if k not in ("TRUSTED_PROXIES", "FORWARDED_ALLOW_IPS")
    }
    env["PATH"] = f"{ROOT / '.venv' / 'bin'}:{env.get('PATH', '')}"
    if trusted_proxies is not None:
        env["TRUSTED_PROXIES"] = trusted_proxies
    result = subprocess.run(  # noqa: S603
        ["sh", "-c", web.removeprefix("web:").strip() + " --print-config"],  # noqa: S607
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    [line] = [line for line in result.stdout.splitlines() if line.startswith("forwarded_allow_ips")]
    return line.split("=", 1)[1].strip()


def test_the_production_web_command_believes_forwarded_headers_only_from_trusted_proxies():
    """Finding (issue 24): "uvicorn and gunicorn believe `X-Forwarded-For` from 127.0.0.1 by
    default, and the Procfile and `make demo` keep that default, so any client that reaches
    the app through a local terminator or tunnel picks its own address"."""
    assert _web_command_config(None) == "[]"
    assert _web_command_config("10.0.0.0/8,192.0.2.1") == "['10.0.0.0/8', '192.0.2.1']"


def test_make_demo_believes_forwarded_headers_only_from_trusted_proxies():
    """The same finding for `make demo`: uvicorn is told whom to believe, and an empty
    list believes nobody, 127.0.0.1 included."""
    import asyncio

    from uvicorn.middleware.proxy_headers import ProxyHeadersMiddleware

    servers = [
        line.strip()
        for line in (ROOT / "Makefile")
        .read_text()
        .split("\ndemo: install")[1]
        .split("\n\n")[0]
        .splitlines()
        if "uvicorn " in line or "--forwarded-allow-ips" in line
    ]
    assert servers
    assert all(
        '--forwarded-allow-ips="$${TRUSTED_PROXIES:-}"' in line
        for line in servers
        if "--forwarded-allow-ips" in line
    )
    assert sum("--forwarded-allow-ips" in line for line in servers) == sum(
        "uvicorn " in line for line in servers
    )

    seen = {}

    async def app(scope, receive, send):
        seen["client"] = scope["client"]

    scope = {
        "type": "http",
        "client": ("127.0.0.1", 5000),
        "headers": [(b"x-forwarded-for", b"6.6.6.6")],
    }
    asyncio.run(ProxyHeadersMiddleware(app, trusted_hosts="")(scope, None, None))
    assert seen["client"] == ("127.0.0.1", 5000)


def test_postgresql_connections_prepare_the_statements_they_repeat():
    """Issue 41: server-side binding alone prepared nothing (Django turns psycopg's
    preparing off unless OPTIONS sets a threshold), so PostgreSQL planned every statement
    of every dispatch step again."""
    url = "postgres://postgres@127.0.0.1:5432/unused"
    name = 'DATABASES["default"]["OPTIONS"]'
    on = setting_under("config.settings.test", name, DATABASE_URL=url)
    off = setting_under(
        "config.settings.test", name, DATABASE_URL=url, DATABASE_PREPARED_STATEMENTS="false"
    )
    unbound = setting_under(
        "config.settings.test", name, DATABASE_URL=url, DATABASE_SERVER_SIDE_BINDING="false"
    )

    assert "'prepare_threshold': 5" in on.stdout, on.stderr
    assert "'server_side_binding': True" in off.stdout, off.stderr
    assert "prepare_threshold" not in off.stdout
    assert "prepare_threshold" not in unbound.stdout, unbound.stderr


@pytest.mark.postgres
@pytest.mark.django_db
def test_a_statement_run_again_on_a_connection_is_planned_once():
    from django.db import connection

    from bookings.models import Booking

    for _ in range(8):
        Booking.objects.filter(pk=0).exists()
    with connection.cursor() as cursor:
        cursor.execute("SELECT statement FROM pg_prepared_statements")
        prepared = [row[0] for row in cursor.fetchall()]

    assert any('FROM "bookings_booking"' in statement for statement in prepared)
