"""External accounts that call the API: partners, operators, suppliers and AI agents."""

from __future__ import annotations

import base64
import binascii
import secrets
from datetime import timedelta

from django.conf import settings
from django.core.validators import RegexValidator
from django.db import models
from django.db.models import Q
from django.utils import timezone
from rest_framework_api_key.models import AbstractAPIKey, BaseAPIKeyManager

SECRET_PREFIX = "whsec_"
# Standard Webhooks: the secret is "whsec_" + base64 of 24 to 64 random bytes.
SECRET_KEY_BYTES = 32
SECRET_KEY_MIN_BYTES, SECRET_KEY_MAX_BYTES = 24, 64


def new_signing_secret() -> str:
    """A Standard Webhooks secret: ``whsec_`` + base64 of 32 random bytes (contract 5.1)."""
    return SECRET_PREFIX + base64.b64encode(secrets.token_bytes(SECRET_KEY_BYTES)).decode()


def _standard_key(secret: str) -> bytes | None:
    """The key a Standard Webhooks secret encodes, or None when ``secret`` is not one."""
    if not secret.startswith(SECRET_PREFIX):
        return None
    try:
        key = base64.b64decode(secret.removeprefix(SECRET_PREFIX), validate=True)
    except (binascii.Error, ValueError):
        return None
    return key if SECRET_KEY_MIN_BYTES <= len(key) <= SECRET_KEY_MAX_BYTES else None


def webhook_signing_key(secret: str) -> bytes:
    """The HMAC key outbound webhooks are signed with (contract 5.1).

    A Standard Webhooks secret signs with the bytes it encodes, as every Standard Webhooks
    library expects. A legacy secret (issued before secrets were base64: ``whsec_`` + a
    URL-safe token, never valid padded base64) keeps signing with the UTF-8 bytes of the
    whole string, as its receivers were told; :func:`webhook_secret_for_receivers` shows
    it in the standard form that encodes those same bytes.
    """
    return _standard_key(secret) or secret.encode()


def webhook_secret_for_receivers(secret: str) -> str:
    """The secret exactly as a receiver passes it to a Standard Webhooks library.

    A standard secret is itself; a legacy one is ``whsec_`` + base64 of its UTF-8 bytes
    (the key its deliveries have always been signed with), so existing receivers keep
    verifying and new ones can use the official libraries without a rotation.
    """
    if _standard_key(secret) is not None:
        return secret
    return SECRET_PREFIX + base64.b64encode(secret.encode()).decode()


def signing_secret_is_legacy(secret: str) -> bool:
    return bool(secret) and _standard_key(secret) is None


class IntakeFormat(models.TextChoices):
    """The payload an account pushes its jobs in: each format is one module that turns it
    into the one intake request (PartnerJob) and renders the outcome its own way
    (``partners/intake_formats/``)."""

    PARTNER_JOB = "partner_job", "PartnerJob (seed 2.10): /v1/jobs, /v1/operator/jobs, hooks"
    TOMP = "tomp", "TOMP-API 1.6.1 (a MaaS provider): /api/tomp/"


class Account(models.Model):
    class Kind(models.TextChoices):
        PARTNER = "partner"
        OPERATOR = "operator"
        SUPPLIER = "supplier"
        AGENT = "agent"

    kind = models.CharField(max_length=16, choices=Kind.choices)
    intake_format = models.CharField(
        max_length=20,
        choices=IntakeFormat.choices,
        default=IntakeFormat.PARTNER_JOB,
        help_text="The payload this account pushes jobs in; a door takes only its own format.",
    )
    name = models.CharField(max_length=200)
    slug = models.SlugField(max_length=60, unique=True)
    approved = models.BooleanField(
        default=False, help_text="Operators: approved for live intake. Partners: may go live."
    )
    paused = models.BooleanField(
        default=False, help_text="Operator bridge paused: intake is refused."
    )
    can_book = models.BooleanField(
        default=True, help_text="May create bookings through the public booking endpoints."
    )
    may_set_fare = models.BooleanField(
        default=True,
        help_text=(
            "Partners, operators and suppliers: may send their own fare (fareGBP, fare). "
            "Untick to withdraw it. Agents never may (bookings.policies.fare_require_allowed)."
        ),
    )
    daily_job_limit = models.PositiveIntegerField(
        default=1000, help_text="Jobs accepted per day (Europe/London) through intake."
    )
    rate_limit = models.CharField(
        max_length=20,
        blank=True,
        # What django-ratelimit reads: a count, then per [n] s, m, h or d. Anything else
        # would fail every request the key makes.
        validators=[
            RegexValidator(
                r"^[1-9]\d*/\d*[smhd]$", 'A count per period, e.g. "6000/m" or "100/5s".'
            )
        ],
        help_text='Per-key request limit overriding the defaults, e.g. "6000/m". Blank: defaults.',
    )
    dispatch_platform = models.BooleanField(
        default=False,
        help_text=(
            "A connected dispatch platform: receives tariff.updated events for council "
            "tariffs and operator rates at its webhook URL and may read them "
            "(GET /api/public/v1/tariffs/{tariffId}) with its key (contract 5.3)."
        ),
    )
    webhook_url = models.URLField(blank=True, max_length=500)
    webhook_disabled_at = models.DateTimeField(null=True, blank=True)
    driver_location_events = models.BooleanField(
        default=False,
        help_text="Send booking.driver_location events (the car's latest position, heading "
        "and ETA to pickup, at most every 15 s per booking) from accepted until on board.",
    )
    driver_location_until_completed = models.BooleanField(
        default=False,
        help_text="With driver location events on: keep sending them while the passenger "
        "is on board, until the trip is completed.",
    )
    pickup_codes = models.BooleanField(
        default=True,
        help_text="This account's bookings carry a 4-digit pickup code that the passenger "
        "tells the driver to start the trip (bookings.pickup_codes). Off for a sender whose "
        "own app checks the passenger.",
    )
    # Kept readable (not hashed): it signs outbound webhooks and verifies inbound HMAC.
    signing_secret = models.CharField(max_length=100, default=new_signing_secret)
    previous_signing_secret = models.CharField(max_length=100, blank=True)
    previous_signing_secret_expires_at = models.DateTimeField(
        null=True,
        blank=True,
        help_text="Until when the previous secret still verifies and co-signs (rotation).",
    )
    contact_email = models.EmailField(blank=True)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return f"{self.name} ({self.kind})"

    def previous_signing_secret_live(self, now=None) -> bool:
        """The secret rotating out still verifies and co-signs until its expiry (a rotation
        started before expiries existed has none and lasts until it is finished)."""
        if not self.previous_signing_secret:
            return False
        expires = self.previous_signing_secret_expires_at
        return expires is None or (now or timezone.now()) < expires

    def signing_secrets(self) -> list[str]:
        """Secrets accepted or used for signing: the current first, then the one rotating
        out while it is live."""
        if self.previous_signing_secret_live():
            return [s for s in (self.signing_secret, self.previous_signing_secret) if s]
        return [self.signing_secret] if self.signing_secret else []

    def rotate_signing_secret(self, now=None) -> str:
        """Issue a new (standard) secret; the current one stays live for the setting
        WEBHOOK_SECRET_ROTATION_HOURS, then stops verifying and co-signing."""
        self.previous_signing_secret = self.signing_secret
        self.previous_signing_secret_expires_at = (now or timezone.now()) + timedelta(
            hours=settings.WEBHOOK_SECRET_ROTATION_HOURS
        )
        self.signing_secret = new_signing_secret()
        return self.signing_secret


class AccountKeyManager(BaseAPIKeyManager):
    def get_usable_keys(self):
        # One query per authenticated request: the key and its account together.
        return super().get_usable_keys().select_related("account")


class AccountKey(AbstractAPIKey):
    """An API key of an account, stored hashed (djangorestframework-api-key)."""

    objects = AccountKeyManager()

    account = models.ForeignKey(Account, on_delete=models.CASCADE, related_name="keys")

    class Meta(AbstractAPIKey.Meta):
        verbose_name = "API key"
        verbose_name_plural = "API keys"


class OperatorUser(models.Model):
    """A back-office login of an operator: who may use its dashboard (seed section 4 rule 2)."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="operator_user"
    )
    account = models.ForeignKey(
        Account,
        on_delete=models.CASCADE,
        related_name="operator_users",
        limit_choices_to={"kind": Account.Kind.OPERATOR},
    )

    class Meta:
        verbose_name = "operator user"

    def __str__(self) -> str:
        return f"{self.user} @ {self.account.slug}"


class WebhookDeliveryStatus(models.TextChoices):
    PENDING = "pending"  # waiting for its next attempt (next_attempt_at)
    DELIVERED = "delivered"
    FAILED = "failed"  # retries exhausted, endpoint gone (410), or URL refused


class WebhookDelivery(models.Model):
    """One message to deliver to one account's webhook URL (contract 5.1).

    A booking event to the booking's sender or to the partner fleet holding the job
    (``event``), a tier-3 job offer to a partner fleet (``offer``, type
    ``booking.offered``), or a version of a tariff to a connected dispatch platform
    (``tariff_publication``, type ``tariff.updated``, contract 5.3, no booking); exactly
    one of the three is set.
    An account whose intake format has a protocol of its own (TOMP-API) hears in it: the
    message goes to ``path`` under the account's URL (the provider's base URL), with the
    format's ``headers`` besides the Standard Webhooks signature.
    The body is frozen when the message is created so that every retry sends the same
    bytes under the same ``webhook_id``; long waits between retries live in
    ``next_attempt_at`` and a periodic task picks them up, never in broker countdowns.
    """

    account = models.ForeignKey(
        Account, on_delete=models.CASCADE, related_name="webhook_deliveries"
    )
    booking = models.ForeignKey(
        "bookings.Booking",
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="webhook_deliveries",
    )
    event = models.ForeignKey(
        "bookings.BookingEvent",
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="webhook_deliveries",
    )
    offer = models.ForeignKey(
        "dispatch.Offer",
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="webhook_deliveries",
        help_text="The fleet offer this delivery carries (booking.offered).",
    )
    tariff_publication = models.ForeignKey(
        "pricing.TariffPublication",
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="webhook_deliveries",
        help_text="The tariff version this delivery carries (tariff.updated).",
    )
    webhook_id = models.CharField(max_length=64, unique=True)
    event_type = models.CharField(max_length=40)
    sequence = models.PositiveIntegerField()
    body = models.TextField(help_text="The exact JSON bytes that are signed and sent.")
    url = models.URLField(max_length=500)
    path = models.CharField(
        max_length=200,
        blank=True,
        help_text=(
            "Appended to the account's webhook URL when the account's format addresses "
            "each message to a path of its own (TOMP-API: /legs/{id}/events, ...)."
        ),
    )
    headers = models.JSONField(
        default=dict,
        blank=True,
        help_text="Headers of the account's format sent besides the signature (TOMP's Api, ...).",
    )
    status = models.CharField(
        max_length=16,
        choices=WebhookDeliveryStatus.choices,
        default=WebhookDeliveryStatus.PENDING,
    )
    attempt_count = models.PositiveSmallIntegerField(default=0)
    next_attempt_at = models.DateTimeField(null=True, blank=True)
    last_status_code = models.PositiveSmallIntegerField(null=True, blank=True)
    last_error = models.CharField(max_length=500, blank=True)
    delivered_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(default=timezone.now, db_index=True)

    class Meta:
        ordering = ["-created_at"]
        verbose_name_plural = "webhook deliveries"
        constraints = [
            # The receiver may run twice for one event (robust signal, redelivered task):
            # one delivery per (account, event) whatever happens.
            models.UniqueConstraint(fields=["account", "event"], name="webhook_one_per_event"),
            # Likewise the fleet_offer_made receiver: one delivery per (account, offer).
            models.UniqueConstraint(fields=["account", "offer"], name="webhook_one_per_offer"),
            # Likewise the tariff fanout: one delivery per (platform, tariff version).
            models.UniqueConstraint(
                fields=["account", "tariff_publication"], name="webhook_one_per_tariff_version"
            ),
            models.CheckConstraint(
                condition=Q(
                    event__isnull=False, offer__isnull=True, tariff_publication__isnull=True
                )
                | Q(event__isnull=True, offer__isnull=False, tariff_publication__isnull=True)
                | Q(event__isnull=True, offer__isnull=True, tariff_publication__isnull=False),
                name="webhook_one_subject",
            ),
        ]
        indexes = [models.Index(fields=["status", "next_attempt_at"], name="webhook_due")]

    def __str__(self) -> str:
        return f"{self.webhook_id} {self.event_type} -> {self.account.slug} ({self.status})"


class WebhookAttempt(models.Model):
    """One HTTP attempt of a delivery, kept for the back office (contract 5.1)."""

    delivery = models.ForeignKey(WebhookDelivery, on_delete=models.CASCADE, related_name="attempts")
    attempted_at = models.DateTimeField(default=timezone.now)
    status_code = models.PositiveSmallIntegerField(null=True, blank=True)
    latency_ms = models.PositiveIntegerField(default=0)
    error = models.CharField(max_length=500, blank=True)
    response_excerpt = models.CharField(max_length=500, blank=True)

    class Meta:
        ordering = ["attempted_at", "id"]

    def __str__(self) -> str:
        return f"{self.delivery.webhook_id} at {self.attempted_at:%Y-%m-%d %H:%M:%S}"

    @property
    def succeeded(self) -> bool:
        return self.status_code is not None and 200 <= self.status_code < 300


class SignedRequest(models.Model):
    """One accepted HMAC signature (contract 1.2: a signed request is good once).

    The unique (account, digest) pair is what makes a repeat harmless, even two copies
    arriving at the same instant: the first inserts the row (``in_flight``) and runs; any
    later copy hits the constraint and is answered with the stored first outcome, so a
    captured amendment replayed later can never undo a newer one.

    A signature carrying ``x-timestamp`` stops being accepted ``SIGNED_REQUEST_WINDOW_SECONDS``
    after (or before) that time, so its row is purged once ``expires_at`` has passed. A signature without one
    never expires, so neither does its row (``expires_at`` is null): partners are told to
    send ``x-timestamp``.
    """

    class State(models.TextChoices):
        IN_FLIGHT = "in_flight"
        DONE = "done"

    account = models.ForeignKey(Account, on_delete=models.CASCADE, related_name="+")
    # sha256 of the normalised signature: enough to recognise a repeat, useless to re-sign.
    digest = models.CharField(max_length=64)
    signed_at = models.DateTimeField(null=True, blank=True, help_text="x-timestamp, if sent.")
    expires_at = models.DateTimeField(null=True, blank=True, db_index=True)
    method = models.CharField(max_length=8)
    path = models.CharField(max_length=255)
    state = models.CharField(max_length=16, choices=State.choices, default=State.IN_FLIGHT)
    response_status = models.PositiveSmallIntegerField(null=True, blank=True)
    response_content_type = models.CharField(max_length=100, blank=True)
    response_body = models.BinaryField(blank=True, default=b"")
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["account", "digest"], name="signed_request_once"),
        ]

    def __str__(self) -> str:
        return f"{self.account_id} {self.method} {self.path} ({self.state})"


class DriverLocationFeed(models.Model):
    """Where one booking's booking.driver_location events stand (contract 5.1, issue 17).

    Not a queue: positions are never stored here. The driver's row holds the latest one;
    this row says when the booking's last event went out (``sent_at``, claimed before the
    attempt, so two senders never send one booking within the interval) and which position
    the receiver last acknowledged (``delivered_position_at``). A failed attempt leaves the
    latter alone, so the next tick sends the position of that moment, never the stale one.
    """

    booking = models.OneToOneField(
        "bookings.Booking",
        primary_key=True,
        on_delete=models.CASCADE,
        related_name="driver_location_feed",
    )
    account = models.ForeignKey(Account, on_delete=models.CASCADE, related_name="+")
    sent_at = models.DateTimeField()
    delivered_position_at = models.DateTimeField(null=True, blank=True)
    events_sent = models.PositiveIntegerField(default=0)
    failures = models.PositiveIntegerField(default=0)
    last_status_code = models.PositiveSmallIntegerField(null=True, blank=True)
    last_error = models.CharField(max_length=500, blank=True)

    class Meta:
        verbose_name = "driver location feed"

    def __str__(self) -> str:
        return f"{self.booking_id} -> {self.account_id} (sent {self.sent_at:%H:%M:%S})"


class IntakeDayCount(models.Model):
    """How many jobs an account's intake created on one local day (contract 4.2 daily limit).

    The count the limit is checked against: a batch reserves its new jobs here under a row
    lock before writing them, so batches of one account sent at the same instant cannot
    together pass the limit (counting today's bookings instead let each see the others'
    jobs as not yet written). Reservations a batch did not use are given back.
    """

    account = models.ForeignKey(Account, on_delete=models.CASCADE, related_name="+")
    day = models.DateField(help_text="Europe/London calendar day.")
    jobs = models.PositiveIntegerField(default=0)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["account", "day"], name="intake_day_count_once"),
        ]

    def __str__(self) -> str:
        return f"{self.account_id} {self.day}: {self.jobs}"


class SupportRequest(models.Model):
    """A request for support a MaaS provider raised on one of its bookings (TOMP-API
    ``POST /support``), kept as sent and answered by staff in the back office. Its
    statuses are TOMP's; ``order`` counts its changes (TOMP: the highest is current)."""

    class Status(models.TextChoices):
        PROCESSING = "PROCESSING", "Processing"
        UPDATE_REQUESTED = "UPDATE_REQUESTED", "Update requested from the provider"
        RESOLVED = "RESOLVED", "Resolved"
        CANCELLED = "CANCELLED", "Cancelled"

    account = models.ForeignKey(Account, on_delete=models.CASCADE, related_name="support_requests")
    booking = models.ForeignKey(
        "bookings.Booking", on_delete=models.CASCADE, related_name="support_requests"
    )
    support_type = models.CharField(max_length=40)
    priority = models.CharField(max_length=40, blank=True)
    comment = models.TextField(blank=True, help_text="The provider's words, as sent.")
    request = models.JSONField(help_text="The request as sent (TOMP supportRequest).")
    status = models.CharField(max_length=20, choices=Status.choices, default=Status.PROCESSING)
    reply = models.TextField(blank=True, help_text="Sent to the end user with the status.")
    order = models.PositiveIntegerField(default=0)
    created_at = models.DateTimeField(default=timezone.now, db_index=True)
    updated_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"Support {self.pk} on booking {self.booking_id} ({self.status})"
