"""The production defaults of the login throttle and the driver token's life (issue 37).

Every other test of these sets its own figures, so a changed default went unnoticed. These
read the settings as the test settings leave them (config.settings.test overrides none of
the three; the environment must not either) and the one README row stating each default.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from django.conf import settings

from drivers.positions import FIX_MAX_AGE, FIX_MAX_AHEAD
from guards.ratelimits import FAIL_CLOSED_SCOPES

README = Path(__file__).resolve().parent.parent / "README.md"

DEFAULTS = {
    # setting: (the environment variable that sets it, the production default)
    "AXES_FAILURE_LIMIT": ("AXES_FAILURE_LIMIT", 10),
    "AXES_COOLOFF_TIME": ("AXES_COOLOFF_HOURS", 0.25),
    "DRIVER_TOKEN_MAX_AGE_HOURS": ("DRIVER_TOKEN_MAX_AGE_HOURS", 720),
}


# The limits issue 35 added or moved: RATELIMITS[scope]: (environment variable, default).
LIMIT_DEFAULTS = {
    "ingest_token": ("RATELIMIT_INGEST_TOKEN", "60/m"),
    "pickup_code": ("RATELIMIT_PICKUP_CODE", "5/15m"),
    "sign_in_code": ("RATELIMIT_SIGN_IN_CODE", "5/h"),
    "sign_in_ip": ("RATELIMIT_SIGN_IN_IP", "30/h"),
    "places": ("RATELIMIT_PLACES", "600/h"),
}


def test_no_environment_variable_changes_the_defaults_under_test():
    assert not [env for env, _ in DEFAULTS.values() if env in os.environ]
    assert not [env for env, _ in LIMIT_DEFAULTS.values() if env in os.environ]


def test_the_limits_hold_their_production_defaults():
    assert {scope: settings.RATELIMITS[scope] for scope in LIMIT_DEFAULTS} == {
        scope: default for scope, (_, default) in LIMIT_DEFAULTS.items()
    }
    # every limit that fails closed is one of them, and logins lock a username per address
    assert set(LIMIT_DEFAULTS) >= FAIL_CLOSED_SCOPES
    assert settings.AXES_LOCKOUT_PARAMETERS == [["username", "ip_address"]]
    assert settings.AXES_HANDLER == "axes.handlers.database.AxesDatabaseHandler"
    for scope, (variable, default) in LIMIT_DEFAULTS.items():
        rows = _rows_naming(variable)
        assert len(rows) == 1, (scope, rows)
        assert f"`{default}`" in rows[0], (scope, rows)


def test_the_settings_hold_the_production_defaults():
    assert {name: getattr(settings, name) for name in DEFAULTS} == {
        name: default for name, (_, default) in DEFAULTS.items()
    }


def test_a_position_fix_may_be_a_day_old_or_five_minutes_ahead():
    assert (FIX_MAX_AGE.total_seconds(), FIX_MAX_AHEAD.total_seconds()) == (24 * 3600, 5 * 60)


def _rows_naming(variable: str) -> list[str]:
    return [
        line
        for line in README.read_text(encoding="utf-8").splitlines()
        if line.startswith("| ") and f"`{variable}`" in line.split(" | ")[0]
    ]


def test_the_readme_states_each_default_once_and_as_the_settings_do():
    throttle = _rows_naming("AXES_FAILURE_LIMIT")
    assert _rows_naming("AXES_COOLOFF_HOURS") == throttle
    assert len(throttle) == 1, throttle
    assert re.search(r"\| `10`, `0\.25` \|$", throttle[0])
    token = _rows_naming("DRIVER_TOKEN_MAX_AGE_HOURS")
    assert len(token) == 1, token
    assert token[0].endswith("| `720` |")
