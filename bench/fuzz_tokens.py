"""Credentials for the authenticated fuzz passes (bench/fuzz.sh): prints shell assignments
of a driver app token and an agent's OAuth access token, made on the fuzz server's own
throwaway database the way the service makes them (the driver's login, a passenger's
grant bound to the MCP resource)."""

from __future__ import annotations

import datetime as dt
import os
import secrets
import shlex
import sys
from pathlib import Path

import django

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.local")
django.setup()

from django.conf import settings  # noqa: E402
from django.contrib.auth import get_user_model  # noqa: E402
from django.utils import timezone  # noqa: E402
from oauth2_provider.models import AccessToken, Application, set_token_value  # noqa: E402

from agents.services import passenger_user_get_or_create  # noqa: E402
from drivers.tokens import driver_token_issue  # noqa: E402

driver_user = get_user_model().objects.get(username="asha.khan")
driver_token = driver_token_issue(user=driver_user).key

passenger = passenger_user_get_or_create(email="fuzz.passenger@example.co.uk")
application = Application.objects.create(
    name="Fuzz Assistant",
    client_type="public",
    authorization_grant_type="authorization-code",
    redirect_uris="http://127.0.0.1/callback",
)
raw = secrets.token_urlsafe(32)
access = AccessToken(
    user=passenger,
    application=application,
    scope="quotes bookings",
    resource=[f"{settings.SITE_URL}/mcp"],
    expires=timezone.now() + dt.timedelta(hours=1),
)
set_token_value(access, raw)
access.save()

print(f"driver_token={shlex.quote(driver_token)}")
print(f"oauth_token={shlex.quote(raw)}")
