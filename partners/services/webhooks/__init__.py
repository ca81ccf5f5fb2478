"""Outbound booking status webhooks, Standard Webhooks style (contract 5.1).

Signing: ``webhook-signature`` is ``v1,<base64(HMAC-SHA256(key, "{id}.{timestamp}.{body}"))>``.
Secrets are Standard Webhooks secrets ("whsec_" + base64 of 32 random bytes) and the key
is the bytes they encode, so the official libraries verify with the secret string as the
back office shows it. Legacy secrets (issued before, not base64) keep their old key, the
UTF-8 bytes of the whole string (``partners.models.webhook_signing_key``); the back office
shows them in the standard form that encodes that key. While a secret is being rotated
every message carries one signature per live secret, separated by spaces, the current
one first.

Tier-3 dispatch (seed 1.3) rides on the same machinery: a job offered to a partner fleet
is a ``booking.offered`` delivery to the fleet's account, signed and retried exactly like
a status webhook; the fleet answers through the booking-status hook (contract 5.2). Once
the fleet holds the job, it is its job too (contract 5.1, last paragraph): its own
acceptance brings it the passenger's name and phone, and the booking's amendments and
cancellation reach it as well as the sender (:func:`fleet_job_delivery_create`). The
passenger's contact is in the fleet's copy only, never in the sender's.

Delivery: a :class:`WebhookDelivery` row per (account, event) or (account, offer) freezes
the body and the ``webhook-id``; attempts happen outside any transaction; a failure sets
``next_attempt_at`` on the Standard Webhooks schedule with jitter. The first retry (5 s)
is also nudged with a broker countdown; every later wait is held in the database and a
periodic task (``partners.tasks.webhook_deliveries_due_send``) picks due rows up.
"""

from partners.services.webhooks.attempts import (
    MAX_ATTEMPTS,
    RETRY_SCHEDULE,
    AttemptOutcome,
    webhook_deliveries_due,
    webhook_delivery_attempt,
    webhook_delivery_redeliver,
)
from partners.services.webhooks.deliveries import (
    FLEET_JOB_EVENT_TYPES,
    OFFERED,
    fleet_job_delivery_create,
    fleet_job_payload_build,
    fleet_offer_delivery_create,
    fleet_offer_payload_build,
    format_message_delivery_create,
    webhook_delivery_create,
    webhook_payload_build,
)
from partners.services.webhooks.signing import (
    webhook_headers,
    webhook_signature,
    webhook_signature_header,
)
from partners.services.webhooks.transport import (
    PinnedAddressAdapter,
    webhook_address_check,
    webhook_delivery_url,
    webhook_post,
    webhook_url_refusal,
)

__all__ = [
    "FLEET_JOB_EVENT_TYPES",
    "MAX_ATTEMPTS",
    "OFFERED",
    "RETRY_SCHEDULE",
    "AttemptOutcome",
    "PinnedAddressAdapter",
    "fleet_job_delivery_create",
    "fleet_job_payload_build",
    "fleet_offer_delivery_create",
    "fleet_offer_payload_build",
    "format_message_delivery_create",
    "webhook_address_check",
    "webhook_deliveries_due",
    "webhook_delivery_attempt",
    "webhook_delivery_create",
    "webhook_delivery_redeliver",
    "webhook_delivery_url",
    "webhook_headers",
    "webhook_payload_build",
    "webhook_post",
    "webhook_signature",
    "webhook_signature_header",
    "webhook_url_refusal",
]
