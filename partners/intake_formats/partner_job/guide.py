"""The PartnerJob format documented: OpenAPI request and examples, and the guide an
operator reads to connect its bridge (``GET /v1/operator/jobs``)."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from drf_spectacular.utils import OpenApiExample, PolymorphicProxySerializer

from api.schema import DEPART_TOMORROW
from partners.intake_formats.partner_job.payload import (
    PARTNER_JOB_FIELDS,
    PartnerJobInputSerializer,
    PartnerJobsEnvelopeInputSerializer,
)
from partners.services.intake_request import MAX_BATCH, JobAction, JobOutcome
from pricing.vehicles import MAX_PASSENGERS, vehicle_classes_described

EXAMPLE_JOB = {
    "jobRef": "ACME-1001",
    "action": "new",
    "pickup": "Leeds station",
    "dropoff": "Leeds Bradford Airport",
    "pickupTime": DEPART_TOMORROW,  # a real time tomorrow in the served document
    "passengerName": "Sam Taylor",
    "passengerPhone": "+447700900123",
    "passengerEmail": "sam.taylor@example.com",
    "passengers": 2,
    "vehicleType": "saloon",
    "flightNumber": "LS123",
    "fare": 32.5,
    "notes": "2 large suitcases",
}

INTAKE_REQUEST = PolymorphicProxySerializer(
    component_name="PartnerJobBody",
    serializers=[
        PartnerJobInputSerializer,
        PartnerJobInputSerializer(many=True),
        PartnerJobsEnvelopeInputSerializer,
    ],
    resource_type_field_name=None,
    many=False,
)

INTAKE_EXAMPLES = [
    OpenApiExample("One job", value=EXAMPLE_JOB, request_only=True),
    OpenApiExample(
        "A batch (at most 100)",
        value=[EXAMPLE_JOB, {"jobRef": "ACME-0999", "action": "cancel"}],
        request_only=True,
    ),
    OpenApiExample(
        "Envelope",
        value={"jobs": [{"jobRef": "ACME-1001", "action": "amend", "passengers": 3}]},
        request_only=True,
    ),
    OpenApiExample(
        "Mixed result",
        value={
            "results": [
                {
                    "index": 0,
                    "jobRef": "ACME-1001",
                    "outcome": "created",
                    "bookingReference": "DTD-7K3QX9PA",
                },
                {
                    "index": 1,
                    "jobRef": "ACME-1002",
                    "outcome": "rejected",
                    "code": "invalid_input",
                    "errors": {"pickupTime": ["This field is required."]},
                },
            ],
            "summary": {"received": 2, "accepted": 1, "rejected": 1},
        },
        response_only=True,
        status_codes=["207"],
    ),
]


def operator_intake_guide() -> dict[str, Any]:
    endpoint = settings.SITE_URL + "/api/public/v1/operator/jobs"
    field_notes = {
        "jobRef": ("string", True, "your own unique reference: idempotency, amend, cancel"),
        "action": ("string", False, "new (default), amend or cancel"),
        "pickup": ("string", True, "required for new"),
        "dropoff": ("string", True, "required for new"),
        "pickupTime": ("string, date-time", True, "ISO 8601; required for new"),
        "passengerName": ("string", False, ""),
        "passengerPhone": ("string", False, "stored in E.164"),
        "passengerEmail": ("string, email", False, ""),
        "passengers": ("integer", False, f"1 to {MAX_PASSENGERS}"),
        "vehicleType": ("string", False, vehicle_classes_described()),
        "flightNumber": ("string", False, ""),
        "fare": ("number", False, "agreed fare in GBP if you price the job"),
        "notes": ("string", False, ""),
    }
    return {
        "endpoint": endpoint,
        "acceptedFields": list(PARTNER_JOB_FIELDS),
        "fields": {
            name: {"type": kind, "required": required, "notes": notes}
            for name, (kind, required, notes) in field_notes.items()
        },
        "actions": [a.value for a in JobAction],
        "maxBatch": MAX_BATCH,
        "bodyForms": ["PartnerJob", "[PartnerJob, ...]", '{"jobs": [PartnerJob, ...]}'],
        "auth": {
            "apiKey": {
                "headers": ["Authorization: Bearer <bridge key>", "x-api-key: <bridge key>"],
            },
            "hmac": {
                "headers": [
                    "x-operator: <your account slug>",
                    "x-signature: <hex>",
                    "x-timestamp: <unix seconds> (optional)",
                ],
                "algorithm": "HMAC-SHA256 with your signing secret, hex (optionally sha256=)",
                "signs": "the raw body, or '{x-timestamp}.{body}' when x-timestamp is sent "
                f"(then within {settings.SIGNED_REQUEST_WINDOW_SECONDS} s of now); a request "
                "without a body: "
                "'{x-timestamp}.{METHOD} {path}', x-timestamp required",
                "once": "a signed request is good once: the same request sent again gets the "
                "first outcome back and changes nothing; re-sign with a new x-timestamp",
            },
        },
        "outcomes": [o.value for o in JobOutcome],
        "statusWebhooks": {
            "standard": "Standard Webhooks (webhook-id, webhook-timestamp, webhook-signature)",
            "signatureKey": "the UTF-8 bytes of your whole signing secret, whsec_ prefix included",
            "events": [
                "booking.created",
                "booking.status_changed",
                "booking.cancelled",
                "booking.completed",
                "booking.amended",
            ],
            "inboundStatus": settings.SITE_URL + "/api/public/hooks/booking-status",
        },
        "examplePayload": {"jobs": [EXAMPLE_JOB]},
    }
