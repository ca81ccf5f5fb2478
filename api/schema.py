"""OpenAPI 3.1 description (contract section 8) and the shared problem schema."""

from __future__ import annotations

import datetime as dt

from django.conf import settings
from django.utils import timezone
from drf_spectacular.extensions import OpenApiAuthenticationExtension
from drf_spectacular.utils import OpenApiExample, OpenApiResponse, inline_serializer
from rest_framework import serializers

from api.problems import TITLES
from core.localtime import local_zone

ProblemSerializer = inline_serializer(
    name="Problem",
    fields={
        "type": serializers.URLField(),
        "title": serializers.CharField(),
        "status": serializers.IntegerField(),
        "detail": serializers.CharField(),
        "code": serializers.ChoiceField(choices=sorted(TITLES)),
        "errors": serializers.DictField(
            child=serializers.ListField(child=serializers.CharField()), required=False
        ),
        "retryAfter": serializers.IntegerField(required=False),
        # The X-Request-ID of the request answered (contract 10.1).
        "requestId": serializers.CharField(required=False),
    },
)

_DESCRIPTIONS = {
    400: "Invalid input (problem JSON; `errors` names the fields).",
    401: "Missing or invalid credentials.",
    403: "Forbidden for this caller.",
    404: "Not found.",
    409: "Conflict with the current state, or the Idempotency-Key is in flight.",
    410: "Gone.",
    413: "Request body too large (over 1 MiB).",
    415: "The body is not JSON (send Content-Type: application/json).",
    422: "Could not be processed (unlocatable address, Idempotency-Key reuse).",
    429: "Rate limited; see the Retry-After header.",
}


def problem_responses(*statuses: int, **descriptions: str) -> dict[int, OpenApiResponse]:
    """Error responses for extend_schema(responses=...): every one is problem JSON."""
    return {
        status: OpenApiResponse(
            response=ProblemSerializer,
            description=descriptions.get(f"s{status}", _DESCRIPTIONS.get(status, "Error.")),
        )
        for status in statuses
    }


def _problem_response(status: int) -> dict:
    return {
        "description": _DESCRIPTIONS[status],
        "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Problem"}}},
    }


def example(name: str, value, **kwargs) -> OpenApiExample:
    return OpenApiExample(name, value=value, **kwargs)


# An example's departure that must stay in the future: replaced, each time the document is
# generated, by tomorrow at EXAMPLE_DEPART_HOUR UK time (examples_dated).
DEPART_TOMORROW = "<tomorrow 10:00 UK time>"
EXAMPLE_DEPART_HOUR = 10
# A driver app's buffered position fixes: moments ago (a fix over a day old is refused).
FIX_TEN_SECONDS_AGO = "<10 seconds ago>"
FIX_FIVE_SECONDS_AGO = "<5 seconds ago>"
# When something reported has just happened (a status hook's occurredAt).
JUST_NOW = "<just now>"
# A flight landing tomorrow: its date, and its expected landing at 10:50 UK time.
TOMORROW_DATE = "<tomorrow's date>"
LANDING_TOMORROW = "<tomorrow 10:50 UK time>"


def examples_dated(result, generator, request, public):
    """Postprocessing hook: every ``DEPART_TOMORROW`` (and fix time) in a request example
    becomes a real time, so "Try it out" books a journey that has not already left and
    reports positions the ingest accepts (issue 40)."""
    zone = local_zone()
    tomorrow = timezone.now().astimezone(zone).date() + dt.timedelta(days=1)
    now = timezone.now().replace(microsecond=0)
    times = {
        DEPART_TOMORROW: dt.datetime.combine(
            tomorrow, dt.time(EXAMPLE_DEPART_HOUR), tzinfo=zone
        ).isoformat(),
        FIX_TEN_SECONDS_AGO: (now - dt.timedelta(seconds=10)).isoformat(),
        FIX_FIVE_SECONDS_AGO: (now - dt.timedelta(seconds=5)).isoformat(),
        JUST_NOW: (now - dt.timedelta(seconds=1)).isoformat(),
        TOMORROW_DATE: tomorrow.isoformat(),
        LANDING_TOMORROW: dt.datetime.combine(tomorrow, dt.time(10, 50), tzinfo=zone).isoformat(),
    }

    def dated(value):
        if isinstance(value, str) and value in times:
            return times[value]
        if isinstance(value, dict):
            return {key: dated(field) for key, field in value.items()}
        if isinstance(value, list):
            return [dated(item) for item in value]
        return value

    for path_item in result.get("paths", {}).values():
        for operation in path_item.values():
            if not isinstance(operation, dict) or "requestBody" not in operation:
                continue
            for content in operation["requestBody"].get("content", {}).values():
                for item in content.get("examples", {}).values():
                    if "value" in item:
                        item["value"] = dated(item["value"])
    return result


def public_paths_only(endpoints, **kwargs):
    return [e for e in endpoints if e[0].startswith("/api/public")]


def add_servers(result, generator, request, public):
    result["servers"] = [{"url": domain.rstrip("/")} for domain in settings.CONNECTED_DOMAINS]
    # Problem responses are served as application/problem+json.
    for path_item in result.get("paths", {}).values():
        for operation in path_item.values():
            if not isinstance(operation, dict):
                continue
            # A control character in any path or query is 400 invalid_input before any view
            # (contract 1.1, api.control_characters): every operation may answer it.
            operation["responses"].setdefault("400", _problem_response(400))
            if "requestBody" in operation:
                # Any body may be too large or not JSON: the parser answers before the view.
                for status in (413, 415):
                    operation["responses"].setdefault(str(status), _problem_response(status))
            for status, response in operation.get("responses", {}).items():
                content = response.get("content", {})
                if str(status)[0] in "45" and "application/json" in content:
                    content["application/problem+json"] = content.pop("application/json")
    components = result.setdefault("components", {}).setdefault("securitySchemes", {})
    components.update(
        {
            "ApiKeyHeader": {
                "type": "apiKey",
                "in": "header",
                "name": "X-Service-AI-Key",
                "description": (
                    "Use this one: an account's API key, as `make demo` prints them (\"Demo "
                    'API keys"). The examples also work with no key, as an anonymous caller, '
                    "where an operation allows it."
                ),
            },
            "ApiKeyXHeader": {
                "type": "apiKey",
                "in": "header",
                "name": "x-api-key",
                "description": "The same API key in another header (as ApiKeyHeader).",
            },
            "BearerKey": {
                "type": "http",
                "scheme": "bearer",
                "description": "The same API key as a Bearer token (as ApiKeyHeader).",
            },
        }
    )
    return result


class AccountKeyScheme(OpenApiAuthenticationExtension):
    """API key in X-Service-AI-Key, x-api-key or Authorization: Bearer (seed section 5)."""

    target_class = "partners.authentication.AccountKeyAuthentication"
    name = ["ApiKeyHeader", "ApiKeyXHeader", "BearerKey"]
    priority = 1

    def get_security_requirement(self, auto_schema):
        # Any one of the three headers authenticates: alternatives, not all three together.
        return [{name: []} for name in self.name]

    def get_security_definition(self, auto_schema):
        return [
            {"type": "apiKey", "in": "header", "name": "X-Service-AI-Key"},
            {"type": "apiKey", "in": "header", "name": "x-api-key"},
            {"type": "http", "scheme": "bearer", "description": "The API key as a Bearer token."},
        ]


class DriverPositionTokenScheme(OpenApiAuthenticationExtension):
    """The driver app's token on POST /v1/driver/location: the same token as ``tokenAuth``,
    checked by a narrower, cached class of its own (driverapp.api.authentication)."""

    target_class = "driverapp.api.authentication.DriverPositionTokenAuthentication"
    name = "driverPositionTokenAuth"

    def get_security_definition(self, auto_schema):
        return {
            "type": "http",
            "scheme": "bearer",
            "description": "The driver's app token from /v1/driver/login, as "
            "`Authorization: Token <token>` (or `Bearer <token>`).",
        }


class HmacScheme(OpenApiAuthenticationExtension):
    """Raw body signed with HMAC SHA-256: x-partner / x-operator + x-signature (+ x-timestamp)."""

    target_class = "partners.authentication.HmacSignatureAuthentication"
    name = "HmacSignature"

    def get_security_definition(self, auto_schema):
        return {
            "type": "apiKey",
            "in": "header",
            "name": "x-signature",
            "description": (
                "Hex HMAC-SHA256 of the raw request body (optionally `sha256=`-prefixed) with the "
                "account's signing secret; `x-partner` or `x-operator` names the account. With "
                "`x-timestamp` (Unix seconds) the signature covers `{timestamp}.{body}` and must "
                f"be within {settings.SIGNED_REQUEST_WINDOW_SECONDS} s of now. A request without "
                "a body (the reconciliation GET) is "
                "signed over `{timestamp}.{METHOD} {path}` and needs `x-timestamp`. A signed "
                "request is good once: sending it again returns the first outcome (header "
                "`Idempotent-Replayed: true`) and changes nothing."
            ),
        }
