"""Council tariff and operator rate fanout to connected dispatch platforms (seed 6.5,
contract 5.3).

Pricing records each new version of a tariff (``pricing.publication.tariff_publish``) and
sends ``pricing.signals.tariff_published`` after commit; the subscriber
(``partners.receivers.tariff_publication_webhook_enqueue``) calls
:func:`tariff_update_deliveries_create`, and the deliveries ride on the status webhook
machinery (``partners.services.webhooks``): same headers and signing, same retry schedule
held in the database, same attempt log and back-office redelivery.

A platform that missed an event, or joins later, reads the current version with
:func:`tariff_get_for_platform` (``GET /api/public/v1/tariffs/{tariffId}``).
"""

from __future__ import annotations

import json
import uuid
from datetime import UTC

from django.db import IntegrityError, transaction
from django.utils import timezone

from core.callers import Caller
from core.errors import DomainError
from guards.ratelimits import limit_enforce
from partners.models import Account, WebhookDelivery
from pricing.models import TariffPublication
from pricing.publication import tariff_publication_latest

TARIFF_UPDATED = "tariff.updated"


def _iso_utc(moment) -> str:
    return moment.astimezone(UTC).isoformat().replace("+00:00", "Z")


def tariff_update_payload_build(*, publication: TariffPublication) -> dict:
    """The ``tariff.updated`` body: the version's data exactly as the GET returns it."""
    return {
        "type": TARIFF_UPDATED,
        "timestamp": _iso_utc(publication.published_at),
        "data": publication.data,
    }


def dispatch_platforms_connected():
    """Accounts that receive tariff.updated: marked as dispatch platforms, with a webhook
    URL whose endpoint has not been disabled (410)."""
    return Account.objects.filter(dispatch_platform=True, webhook_disabled_at__isnull=True).exclude(
        webhook_url=""
    )


def tariff_update_deliveries_create(*, publication_id: int) -> list[WebhookDelivery]:
    """Create one ``tariff.updated`` delivery per connected dispatch platform.

    Guarantees: at most one delivery per (platform, tariff version), even when called
    twice (unique constraint); a version superseded before this ran is still sent (each
    carries its ``version``; the highest is current). Call after the version's transaction
    committed (the pricing.signals.tariff_published signal).
    """
    publication = TariffPublication.objects.filter(pk=publication_id).first()
    if publication is None:
        return []
    body = json.dumps(tariff_update_payload_build(publication=publication), separators=(",", ":"))
    created = []
    for account in dispatch_platforms_connected():
        try:
            with transaction.atomic():
                created.append(
                    WebhookDelivery.objects.create(
                        account=account,
                        tariff_publication=publication,
                        webhook_id=f"msg_{uuid.uuid4().hex}",
                        event_type=TARIFF_UPDATED,
                        sequence=publication.version,
                        body=body,
                        url=account.webhook_url,
                        next_attempt_at=timezone.now(),
                    )
                )
        except IntegrityError:
            continue  # already created for this platform and version
    return created


def tariff_get_for_platform(*, caller: Caller, tariff_id: str) -> dict:
    """The current version of ``tariff_id`` as its last ``tariff.updated`` carried it.

    Guarantees: only connected dispatch platforms read it (403 ``partner_not_allowed``
    otherwise); a reference never published (unknown, never in force, or not a council
    tariff or operator rate) is 404 ``tariff_not_found``; a withdrawn tariff answers its
    withdrawal, so a platform that missed it learns of it.
    """
    account = caller.account
    if account is None or not account.dispatch_platform:
        raise DomainError(
            "partner_not_allowed",
            "Tariffs are published to connected dispatch platforms only.",
        )
    limit_enforce(caller, "intake")
    publication = tariff_publication_latest(reference=tariff_id[:80])
    if publication is None:
        raise DomainError("tariff_not_found", f"No published tariff {tariff_id[:80]!r}.")
    return publication.data
