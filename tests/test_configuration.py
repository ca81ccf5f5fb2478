"""The configurations of contract section 10: what runs with no environment at all."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

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
