"""Health and readiness (contract 10.1), through django-health-check.

``/healthz`` answers 200 while the process can serve, touching nothing. ``/readyz`` runs
django-health-check's database and cache checks and a broker check (below), all at once,
and answers ``{"database": "ok", "cache": "ok", "broker": "ok"}``, or 503 with
``Retry-After`` naming what failed (``"database": "unavailable: ..."``).
"""

from __future__ import annotations

import asyncio
import dataclasses
import datetime

from celery import current_app
from django.conf import settings
from django.http import JsonResponse
from django.views.decorators.cache import never_cache
from health_check.base import HealthCheck
from health_check.checks import Cache, Database
from health_check.exceptions import ServiceUnavailable
from health_check.views import HealthCheckView


@dataclasses.dataclass
class Broker(HealthCheck):
    """The Celery broker accepts a connection (a worker need not be running)."""

    timeout: datetime.timedelta = dataclasses.field(
        default=datetime.timedelta(seconds=3), repr=False
    )

    def run(self) -> None:
        seconds = self.timeout.total_seconds()
        try:
            with current_app.connection_for_write(connect_timeout=seconds) as connection:
                connection.ensure_connection(max_retries=1, interval_start=0, timeout=seconds)
        except Exception as exc:  # noqa: BLE001 - any failure to connect is "unavailable"
            raise ServiceUnavailable(f"broker unreachable ({type(exc).__name__})") from exc


# What /readyz checks, by the name its JSON gives each.
READINESS_CHECKS = {
    "database": Database,
    "cache": Cache,
    "broker": Broker,
}


@never_cache
def healthz(request):
    return JsonResponse({"status": "ok"})


class ReadinessView(HealthCheckView):
    """django-health-check's view, answering the contract's JSON and 503."""

    checks = tuple(READINESS_CHECKS.values())

    async def get(self, request, *args, **kwargs):
        with self.get_executor() as executor:
            results = await asyncio.gather(
                *(check.get_result(executor) for check in self.get_checks())
            )
        body = {
            name: "ok" if result.error is None else f"unavailable: {result.error}"
            for name, result in zip(READINESS_CHECKS, results, strict=True)
        }
        failed = any(result.error is not None for result in results)
        response = JsonResponse(body, status=503 if failed else 200)
        if failed:
            response["Retry-After"] = str(settings.SERVICE_UNAVAILABLE_RETRY_AFTER_SECONDS)
        return response


readyz = ReadinessView.as_view()
