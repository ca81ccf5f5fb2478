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

from __future__ import annotations

import base64
import hashlib
import hmac
import ipaddress
import json
import logging
import secrets
import socket
import time
import uuid
from dataclasses import dataclass
from datetime import UTC, timedelta
from urllib.parse import urlsplit

import requests
from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import F
from django.utils import timezone
from requests.adapters import HTTPAdapter

from bookings import events as booking_events
from bookings.models import Booking, BookingEvent, BookingStatus
from bookings.selectors import driver_public_summary
from core.task_queue import task_enqueue_on_commit
from dispatch.models import Offer, OfferStatus
from partners.models import (
    Account,
    WebhookAttempt,
    WebhookDelivery,
    WebhookDeliveryStatus,
    webhook_signing_key,
)

logger = logging.getLogger(__name__)

# Standard Webhooks retry schedule (contract 5.1): waits before retries 1..9.
RETRY_SCHEDULE = (
    timedelta(seconds=5),
    timedelta(minutes=5),
    timedelta(minutes=30),
    timedelta(hours=2),
    timedelta(hours=5),
    timedelta(hours=10),
    timedelta(hours=14),
    timedelta(hours=20),
    timedelta(hours=24),
)
MAX_ATTEMPTS = 1 + len(RETRY_SCHEDULE)
JITTER = 0.1  # each wait is stretched or shrunk by up to 10%
# A claimed attempt holds the row this long; a worker that dies mid-request frees it then.
CLAIM_LEASE = timedelta(minutes=2)
# Connect and read timeouts (seconds); the read one is a setting (WEBHOOK_READ_TIMEOUT).
WEBHOOK_CONNECT_TIMEOUT_SECONDS = 5
USER_AGENT = "DirectToDriver-Webhooks/1.0"

# A job offered to a partner fleet (tier 3): sent to the fleet, never to the booking's
# sender, and not a booking event (bookings.events holds those).
OFFERED = "booking.offered"


# --- signing ------------------------------------------------------------------------


def webhook_signature(*, secret: str, webhook_id: str, timestamp: int, body: str) -> str:
    """One ``v1,<base64>`` entry, keyed by :func:`partners.models.webhook_signing_key`."""
    signed = f"{webhook_id}.{timestamp}.{body}".encode()
    digest = hmac.new(webhook_signing_key(secret), signed, hashlib.sha256).digest()
    return "v1," + base64.b64encode(digest).decode()


def webhook_signature_header(
    *, account: Account, webhook_id: str, timestamp: int, body: str
) -> str:
    return " ".join(
        webhook_signature(secret=s, webhook_id=webhook_id, timestamp=timestamp, body=body)
        for s in account.signing_secrets()
    )


def webhook_headers(*, account: Account, webhook_id: str, timestamp: int, body: str) -> dict:
    return {
        "Content-Type": "application/json",
        "User-Agent": USER_AGENT,
        "webhook-id": webhook_id,
        "webhook-timestamp": str(timestamp),
        "webhook-signature": webhook_signature_header(
            account=account, webhook_id=webhook_id, timestamp=timestamp, body=body
        ),
    }


# --- SSRF -------------------------------------------------------------------------------


def webhook_url_refusal(url: str) -> str | None:
    """Why ``url`` may not be called, or None when it may (contract 5.1 SSRF rule).

    Refused: schemes other than http(s), and hosts resolving to private, loopback,
    link-local, multicast, reserved or unspecified addresses, unless the setting
    WEBHOOK_ALLOW_PRIVATE_NETWORKS is on. A host that does not resolve is not refused here
    (the attempt fails and is retried like any network error).
    """
    return webhook_address_check(url)[0]


def webhook_address_check(url: str) -> tuple[str | None, str | None]:
    """(refusal, address): why ``url`` may not be called, else the checked address that
    the delivery must connect to (None when private networks are allowed, or when the
    host did not resolve this time).

    The name is resolved once, here: a delivery that resolved it again before sending
    could be steered by a DNS answer changed in between (rebinding) to loopback.
    """
    parts = urlsplit(url)
    if parts.scheme not in {"http", "https"} or not parts.hostname:
        return "Webhook URLs must be absolute http(s) URLs.", None
    if settings.WEBHOOK_ALLOW_PRIVATE_NETWORKS:
        return None, None
    try:
        port = parts.port or (443 if parts.scheme == "https" else 80)
        infos = socket.getaddrinfo(parts.hostname, port, proto=socket.IPPROTO_TCP)
    except (socket.gaierror, ValueError, UnicodeError):
        return None, None
    addresses = []
    for info in infos:
        address = ipaddress.ip_address(str(info[4][0]).split("%", 1)[0])
        if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped:
            address = address.ipv4_mapped
        if not address.is_global or address.is_multicast:
            return f"{parts.hostname} resolves to a non-public address ({address}).", None
        addresses.append(str(address))
    return None, addresses[0] if addresses else None


class PinnedAddressAdapter(HTTPAdapter):
    """Connects to one given address whatever the URL's host name resolves to now, while
    the request still names the host (Host header, TLS SNI and certificate check)."""

    def __init__(self, address: str, **kwargs) -> None:
        self.address = address
        super().__init__(**kwargs)

    def get_connection_with_tls_context(self, request, verify, proxies=None, cert=None):
        host_params, pool_kwargs = self.build_connection_pool_key_attributes(request, verify, cert)
        if host_params["scheme"] == "https":
            hostname = urlsplit(request.url).hostname
            pool_kwargs = {**pool_kwargs, "server_hostname": hostname, "assert_hostname": hostname}
        return self.poolmanager.connection_from_host(
            host=self.address,
            port=host_params["port"],
            scheme=host_params["scheme"],
            pool_kwargs=pool_kwargs,
        )

    def add_headers(self, request, **kwargs) -> None:
        request.headers.setdefault("Host", urlsplit(request.url).netloc.rsplit("@", 1)[-1])


def webhook_post(url: str, *, address: str | None, **kwargs) -> requests.Response:
    """``requests.post``; when ``address`` is given, over a connection to that address."""
    if address is None and not settings.WEBHOOK_ALLOW_PRIVATE_NETWORKS:
        # The check could not resolve the name: resolving it again to send would take an
        # unchecked answer. A network error, retried on the schedule.
        raise requests.ConnectionError(f"{urlsplit(url).hostname} did not resolve.")
    with requests.Session() as session:
        if address is not None:
            session.trust_env = False  # a proxy would resolve the name again
            session.mount(url, PinnedAddressAdapter(address))
        return session.post(url, **kwargs)


# --- creating deliveries ----------------------------------------------------------------


def _iso_utc(moment) -> str:
    return moment.astimezone(UTC).isoformat().replace("+00:00", "Z")


def webhook_payload_build(*, event: BookingEvent, booking: Booking) -> dict:
    """The event body of contract 5.1; ``sequence`` lets a receiver keep the latest state.
    ``booking.unassigned`` also carries the reasons dispatch recorded (issue 34)."""
    data = {
        "bookingReference": booking.reference,
        "jobRef": booking.job_ref or None,
        "status": event.to_status or booking.status,
        "previousStatus": event.from_status or None,
        "driver": driver_public_summary(booking.driver, booking.vehicle),
        "sequence": event.sequence,
    }
    if event.type == booking_events.UNASSIGNED:
        data["reasons"] = event.detail.get("reasons", [])
    return {"type": event.type, "timestamp": _iso_utc(event.created_at), "data": data}


def webhook_delivery_create(*, event: BookingEvent) -> WebhookDelivery | None:
    """Create the delivery of ``event`` to the sender of its booking, if it has a webhook.

    Guarantees: at most one delivery per (account, event), even when called twice; None
    when the booking has no sender, the sender has no URL, or its endpoint is disabled.
    Call after the event's transaction committed (the booking_event_committed signal).
    """
    booking = event.booking
    if booking.account_id is None:
        return None
    # The common case (a sender with no webhook URL) is decided without a query when the
    # booking was loaded with its account; an unloaded one is not fetched just for this.
    if Booking.account.is_cached(booking) and not booking.account.webhook_url:
        return None
    # Read afresh: the booking's cached account may predate a 410 that disabled it.
    account = (
        Account.objects.filter(pk=booking.account_id, webhook_disabled_at__isnull=True)
        .exclude(webhook_url="")
        .first()
    )
    if account is None:
        return None
    body = json.dumps(webhook_payload_build(event=event, booking=booking), separators=(",", ":"))
    return _event_delivery_create(account=account, booking=booking, event=event, body=body)


def _event_delivery_create(
    *, account: Account, booking: Booking, event: BookingEvent, body: str
) -> WebhookDelivery | None:
    """The delivery of one booking event to one account, due now; None when that account
    already has it (the unique (account, event): a repeat or a race creates nothing)."""
    try:
        with transaction.atomic():
            return WebhookDelivery.objects.create(
                account=account,
                booking=booking,
                event=event,
                webhook_id=f"msg_{uuid.uuid4().hex}",
                event_type=event.type,
                sequence=event.sequence,
                body=body,
                url=account.webhook_url,
                next_attempt_at=timezone.now(),
            )
    except IntegrityError:
        return None  # already created for this event


def fleet_offer_payload_build(*, offer: Offer, booking: Booking) -> dict:
    """The ``booking.offered`` body: what a fleet needs to decide and do the job.

    Data minimisation: no passenger name, phone or email, and not the sender's jobRef; the
    fleet learns who to collect only once it holds the job.
    """
    return {
        "type": OFFERED,
        "timestamp": _iso_utc(offer.created_at),
        "data": {
            "bookingReference": booking.reference,
            "offerId": offer.pk,
            "expiresAt": _iso_utc(offer.expires_at),
            "pickup": booking.pickup,
            "dropoff": booking.dropoff,
            "pickupTime": _iso_utc(booking.pickup_time),
            "passengers": booking.passengers,
            "vehicleType": booking.vehicle_type,
            "fareGBP": float(booking.fare),
            "currency": booking.currency,
            "wheelchairAccess": booking.wheelchair_access,
            "notes": booking.notes,
            "sequence": booking.sequence,
        },
    }


def fleet_offer_delivery_create(*, offer_id: int) -> WebhookDelivery | None:
    """Create the ``booking.offered`` delivery of a tier-3 offer to its fleet's account.

    Guarantees: at most one delivery per (account, offer), even when called twice; None
    when the offer is no longer open (answered, expired or withdrawn since it was made),
    or the fleet's account has no webhook URL or a disabled endpoint. Call after the
    offer's transaction committed (the dispatch.signals.fleet_offer_made signal).
    """
    offer = (
        Offer.objects.select_related("booking", "fleet__account")
        .filter(pk=offer_id, fleet__isnull=False, status=OfferStatus.OPEN)
        .first()
    )
    if offer is None or offer.booking.status != BookingStatus.OFFERED:
        return None
    account = offer.fleet.account
    if not account.webhook_url or account.webhook_disabled_at is not None:
        return None
    booking = offer.booking
    body = json.dumps(
        fleet_offer_payload_build(offer=offer, booking=booking), separators=(",", ":")
    )
    try:
        with transaction.atomic():
            return WebhookDelivery.objects.create(
                account=account,
                booking=booking,
                offer=offer,
                webhook_id=f"msg_{uuid.uuid4().hex}",
                event_type=OFFERED,
                sequence=booking.sequence,
                body=body,
                url=account.webhook_url,
                next_attempt_at=timezone.now(),
            )
    except IntegrityError:
        return None  # already created for this offer


# Booking events a partner fleet holding the job receives besides the sender (contract
# 5.1): its own acceptance (with the passenger's contact), amendments and cancellation.
FLEET_JOB_EVENT_TYPES = frozenset({booking_events.AMENDED, booking_events.CANCELLED})


def fleet_job_payload_build(*, event: BookingEvent, booking: Booking) -> dict:
    """The fleet's copy of a booking event: the sender's body, plus what the fleet needs
    to do the job as it now stands: the passenger's name and phone (to the holding fleet
    only) and the journey; an amendment also names the fields it changed."""
    payload = webhook_payload_build(event=event, booking=booking)
    data = payload["data"]
    data["passenger"] = {
        "name": booking.passenger_name or None,
        "phone": booking.passenger_phone or None,
    }
    data["job"] = {
        "pickup": booking.pickup,
        "dropoff": booking.dropoff,
        "pickupTime": _iso_utc(booking.pickup_time),
        "passengers": booking.passengers,
        "vehicleType": booking.vehicle_type,
        "wheelchairAccess": booking.wheelchair_access,
        "flightNumber": booking.flight_number or None,
        "notes": booking.notes,
        "fareGBP": float(booking.fare),
        "currency": booking.currency,
    }
    if event.type == booking_events.AMENDED:
        data["changedFields"] = list((event.detail or {}).get("fields", []))
    return payload


def _fleet_holding_job(booking: Booking) -> Account | None:
    """The partner fleet's account that holds ``booking`` through an accepted tier-3 offer
    (not a national operator a driver works for), when it has a live webhook."""
    if booking.subcontracted_to_id is None:
        return None
    latest_accepted = (
        Offer.objects.filter(booking_id=booking.pk, status=OfferStatus.ACCEPTED)
        .order_by("-pk")
        .values_list("fleet__account_id", flat=True)
        .first()
    )
    if latest_accepted != booking.subcontracted_to_id:
        return None
    return (
        Account.objects.filter(pk=booking.subcontracted_to_id, webhook_disabled_at__isnull=True)
        .exclude(webhook_url="")
        .first()
    )


def fleet_job_delivery_create(*, event: BookingEvent) -> WebhookDelivery | None:
    """Create the holding fleet's copy of ``event`` (contract 5.1, tier-3 hand-off).

    Guarantees: only for the fleet's acceptance of the job, an amendment or the
    cancellation of a booking a partner fleet holds through an accepted offer; only to
    that fleet (the passenger's contact goes nowhere else); at most one delivery per
    (account, event); None otherwise, or when the fleet has no URL or a disabled endpoint.
    Call after the event's transaction committed, beside :func:`webhook_delivery_create`.
    """
    booking = event.booking
    if booking.subcontracted_to_id is None:
        return None  # the common case, decided without a query
    accepted = (
        event.to_status == BookingStatus.ACCEPTED and event.from_status != BookingStatus.ACCEPTED
    )
    if not accepted and event.type not in FLEET_JOB_EVENT_TYPES:
        return None
    account = _fleet_holding_job(booking)
    if account is None or account.pk == booking.account_id:
        return None  # not a fleet's job, or the fleet is also the sender (one copy)
    body = json.dumps(fleet_job_payload_build(event=event, booking=booking), separators=(",", ":"))
    return _event_delivery_create(account=account, booking=booking, event=event, body=body)


# --- attempts -----------------------------------------------------------------------------


@dataclass(frozen=True)
class AttemptOutcome:
    attempt: WebhookAttempt | None
    status: str
    retry_in: timedelta | None = None


def _retry_wait(attempts_made: int) -> timedelta:
    base = RETRY_SCHEDULE[attempts_made - 1]
    factor = 1 + JITTER * (2 * secrets.randbelow(10_001) / 10_000 - 1)
    return base * factor


def webhook_delivery_attempt(*, delivery_id: int) -> AttemptOutcome:
    """Make one attempt of a due delivery, outside any transaction.

    Guarantees: only one worker attempts a delivery at a time (a guarded UPDATE claims the
    row and leases it); every attempt is logged with status code, latency and error; 2xx
    delivers; 410 disables the account's endpoint (contract 5.1); anything else is retried
    on the schedule until MAX_ATTEMPTS, then the delivery fails. A delivery that is not
    due, or already claimed, is left alone (outcome status ``skipped``).
    """
    now = timezone.now()
    claimed = WebhookDelivery.objects.filter(
        pk=delivery_id, status=WebhookDeliveryStatus.PENDING, next_attempt_at__lte=now
    ).update(next_attempt_at=now + CLAIM_LEASE, attempt_count=F("attempt_count") + 1)
    if not claimed:
        return AttemptOutcome(attempt=None, status="skipped")
    delivery = WebhookDelivery.objects.select_related("account").get(pk=delivery_id)
    account = delivery.account

    if account.webhook_disabled_at is not None or not account.webhook_url:
        return _attempt_finish(
            delivery,
            status_code=None,
            latency_ms=0,
            error="Endpoint disabled or removed.",
            final=WebhookDeliveryStatus.FAILED,
        )
    if delivery.offer_id is not None and not _offer_still_open(delivery.offer_id):
        # A job offer nobody can take any more is not worth a fleet's attention.
        return _attempt_finish(
            delivery,
            status_code=None,
            latency_ms=0,
            error="Offer closed (answered, expired or withdrawn) before it was delivered.",
            final=WebhookDeliveryStatus.FAILED,
        )
    url = account.webhook_url  # follow a URL changed in the back office since the event
    refusal, address = webhook_address_check(url)
    if refusal:
        return _attempt_finish(
            delivery,
            status_code=None,
            latency_ms=0,
            error=f"Refused: {refusal}",
            final=WebhookDeliveryStatus.FAILED,
            url=url,
        )

    timestamp = int(time.time())
    headers = webhook_headers(
        account=account, webhook_id=delivery.webhook_id, timestamp=timestamp, body=delivery.body
    )
    started = time.monotonic()
    status_code, error, excerpt = None, "", ""
    try:
        # No redirects: a redirect could lead to an address the SSRF check refused.
        response = webhook_post(
            url,
            address=address,
            data=delivery.body.encode(),
            headers=headers,
            timeout=(WEBHOOK_CONNECT_TIMEOUT_SECONDS, settings.WEBHOOK_READ_TIMEOUT_SECONDS),
            allow_redirects=False,
        )
        status_code = response.status_code
        excerpt = response.text[:500]
    except requests.RequestException as exc:
        error = f"{type(exc).__name__}: {exc}"[:500]
    latency_ms = int((time.monotonic() - started) * 1000)

    if status_code is not None and 200 <= status_code < 300:
        return _attempt_finish(
            delivery,
            status_code=status_code,
            latency_ms=latency_ms,
            error="",
            final=WebhookDeliveryStatus.DELIVERED,
            excerpt=excerpt,
            url=url,
        )
    if status_code == 410:
        # Standard Webhooks: 410 Gone means the receiver wants no more; disable the endpoint.
        Account.objects.filter(pk=account.pk, webhook_disabled_at__isnull=True).update(
            webhook_disabled_at=timezone.now()
        )
        return _attempt_finish(
            delivery,
            status_code=status_code,
            latency_ms=latency_ms,
            error="410 Gone: endpoint disabled.",
            final=WebhookDeliveryStatus.FAILED,
            excerpt=excerpt,
            url=url,
        )
    if not error:
        error = f"HTTP {status_code}"
    return _attempt_finish(
        delivery,
        status_code=status_code,
        latency_ms=latency_ms,
        error=error,
        final=None,
        excerpt=excerpt,
        url=url,
    )


def _offer_still_open(offer_id: int) -> bool:
    return Offer.objects.filter(
        pk=offer_id, status=OfferStatus.OPEN, expires_at__gt=timezone.now()
    ).exists()


def _attempt_finish(
    delivery: WebhookDelivery,
    *,
    status_code: int | None,
    latency_ms: int,
    error: str,
    final: str | None,
    excerpt: str = "",
    url: str | None = None,
) -> AttemptOutcome:
    """Log the attempt and decide the delivery's next state in one transaction."""
    now = timezone.now()
    retry_in = None
    with transaction.atomic():
        attempt = WebhookAttempt.objects.create(
            delivery=delivery,
            attempted_at=now,
            status_code=status_code,
            latency_ms=latency_ms,
            error=error[:500],
            response_excerpt=excerpt[:500],
        )
        update: dict = {"last_status_code": status_code, "last_error": error[:500]}
        if url is not None:
            update["url"] = url[:500]
        if final is None and delivery.attempt_count >= MAX_ATTEMPTS:
            final = WebhookDeliveryStatus.FAILED
        if final is None:
            retry_in = _retry_wait(delivery.attempt_count)
            update.update(next_attempt_at=now + retry_in)
            status = WebhookDeliveryStatus.PENDING
        else:
            update.update(status=final, next_attempt_at=None)
            if final == WebhookDeliveryStatus.DELIVERED:
                update["delivered_at"] = now
            status = final
        WebhookDelivery.objects.filter(pk=delivery.pk).update(**update)
    # One line per attempt, under the id of the request (or task) that caused it.
    logger.info(
        "webhook %s %s to account %s: attempt %s, %s in %d ms, now %s",
        delivery.webhook_id,
        delivery.event_type,
        delivery.account_id,
        delivery.attempt_count,
        status_code if status_code is not None else error[:120],
        latency_ms,
        status,
    )
    if final == WebhookDeliveryStatus.FAILED:
        logger.warning(
            "webhook %s to %s failed: %s", delivery.webhook_id, delivery.account_id, error
        )
    return AttemptOutcome(attempt=attempt, status=status, retry_in=retry_in)


def webhook_deliveries_due(*, limit: int = 500) -> list[int]:
    """Ids of pending deliveries whose next attempt is due, oldest first."""
    return list(
        WebhookDelivery.objects.filter(
            status=WebhookDeliveryStatus.PENDING, next_attempt_at__lte=timezone.now()
        )
        .order_by("next_attempt_at")
        .values_list("pk", flat=True)[:limit]
    )


def webhook_delivery_redeliver(*, delivery: WebhookDelivery) -> WebhookDelivery:
    """Queue the delivery again now, with the same webhook-id and body (back-office action).

    The attempt count starts afresh so the full retry schedule applies again.
    """
    WebhookDelivery.objects.filter(pk=delivery.pk).update(
        status=WebhookDeliveryStatus.PENDING,
        next_attempt_at=timezone.now(),
        attempt_count=0,
        delivered_at=None,
    )
    delivery.refresh_from_db()
    # By name: partners.tasks imports this module.
    task_enqueue_on_commit("partners.tasks.webhook_delivery_send", delivery.pk)
    return delivery
