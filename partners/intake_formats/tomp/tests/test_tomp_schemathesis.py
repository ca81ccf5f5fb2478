"""Our TOMP door against its own specification (TOMP-API 1.6.1, as served at
/api/tomp/openapi.yaml): schemathesis generates requests for each implemented operation
from the spec, calls the WSGI app with a TOMP partner's key, and checks every response:
no server error, a status the spec documents, its content type and its schema."""

from __future__ import annotations

import pytest
import schemathesis
from django.core.signals import request_finished, request_started
from django.core.wsgi import get_wsgi_application
from django.db import close_old_connections
from hypothesis import HealthCheck, given
from hypothesis import settings as hypothesis_settings
from schemathesis import checks

from api.problems import PROBLEM_CONTENT_TYPE

pytestmark = pytest.mark.django_db

# The operations the door implements (partners.intake_formats.tomp.shapes.IMPLEMENTED).
IMPLEMENTED = {
    ("POST", "/plannings"),
    ("POST", "/bookings"),
    ("POST", "/bookings/{id}/events"),
    ("GET", "/bookings/{id}"),
    ("GET", "/legs/{id}"),
    ("GET", "/operator/meta"),
    ("POST", "/support/"),
    ("GET", "/support/{id}/status"),
}
EXAMPLES = 15  # per operation: bounded, so the suite stays quick; bench/fuzz.sh goes wider


def answered_by_the_guard(response) -> bool:
    """Whether the project-wide request guard answered (``api.request_bodies``: control
    characters in the path or body, oversize bodies), before the TOMP door ran: its
    problems are application/problem+json, the door's are TOMP's application/json."""
    headers = {name.lower(): value for name, value in response.headers.items()}
    return PROBLEM_CONTENT_TYPE in str(headers.get("content-type", ""))


def door_only(check):
    """``check``, for the responses of the TOMP door itself."""

    def door_check(ctx, response, case):
        if answered_by_the_guard(response):
            return None
        return check(ctx, response, case)

    door_check.__name__ = f"tomp_{check.__name__}"
    return schemathesis.check(door_check)


CHECKS = [
    checks.not_a_server_error,
    door_only(checks.status_code_conformance),
    door_only(checks.content_type_conformance),
    checks.response_schema_conformance,
]


def tomp_operations():
    schema = schemathesis.openapi.from_wsgi("/api/tomp/openapi.yaml", get_wsgi_application())
    schema.config.base_url = "http://localhost/api/tomp"
    for result in schema.get_all_operations():
        operation = result.ok()
        if (operation.method.upper(), operation.path) in IMPLEMENTED:
            yield operation


def test_every_implemented_operation_is_in_the_specification():
    assert {(op.method.upper(), op.path) for op in tomp_operations()} == IMPLEMENTED


@pytest.fixture
def connection_kept():
    """The app called as a WSGI app keeps the test's database connection open, as
    Django's own test client does (it would close it at the end of each request)."""
    for signal in (request_started, request_finished):
        signal.disconnect(close_old_connections)
    yield
    for signal in (request_started, request_finished):
        signal.connect(close_old_connections)


def test_the_tomp_door_keeps_its_specification(settings, make_account, tariffs, connection_kept):
    # given a TOMP provider's key, and no rate limits (the transport's, not TOMP's)
    settings.RATELIMIT_ENABLE = False
    key = make_account("partner", name="MaaS fuzz", intake_format="tomp").raw_key
    failures = {}
    # when schemathesis sends each implemented operation requests generated from the spec
    for operation in tomp_operations():

        @given(case=operation.as_strategy())
        @hypothesis_settings(
            max_examples=EXAMPLES,
            deadline=None,
            database=None,
            suppress_health_check=list(HealthCheck),
        )
        def check(case):
            case.call_and_validate(
                headers={"Authorization": f"Bearer {key}"},
                checks=CHECKS,
                excluded_checks=[checks.status_code_conformance, checks.content_type_conformance],
            )

        try:
            check()
        except Exception as failure:  # noqa: BLE001 (collected, reported together below)
            failures[f"{operation.method.upper()} {operation.path}"] = str(failure)[:2000]
    # then every response kept the specification
    assert failures == {}
