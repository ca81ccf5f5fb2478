"""Dispatch: offers to drivers and fleets, the dispatch trail, and job-card notifications.

Seed 1.3: a booking is matched to the driver pool in tiers (local drivers, national network
drivers covering the corridor, approved partner fleets), one offer at a time.
"""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal

from django.db import models
from django.db.models import Q
from django.utils import timezone

from bookings.models import Booking
from pricing.vehicles import MAX_PASSENGERS


class Tier(models.IntegerChoices):
    MANUAL = 0, "manual assignment"
    LOCAL = 1, "local drivers"
    NATIONAL = 2, "national network"
    FLEET = 3, "partner fleets"


class SkipReason(models.TextChoices):
    """Why a candidate near the pickup was not offered the job (shown in the trail)."""

    NOT_APPROVED = "not_approved"
    LICENCE_EXPIRED = "licence_expired"
    PLATE_EXPIRED = "plate_expired"
    LICENSING_MISMATCH = "licensing_mismatch"
    OFFLINE = "offline"
    NOT_SEEN_RECENTLY = "not_seen_recently"
    AT_CAPACITY = "at_capacity"
    OFFER_PENDING = "offer_pending"
    TOO_FEW_SEATS = "too_few_seats"
    WRONG_CLASS = "wrong_class"
    NO_WHEELCHAIR_ACCESS = "no_wheelchair_access"
    NO_WEBHOOK = "no_webhook"
    OUTSIDE_COVERAGE = "outside_coverage"
    PICKUP_NOT_LOCATED = "pickup_not_located"


class PartnerFleet(models.Model):
    """An approved partner fleet that takes jobs in tier 3 (seed 1.3).

    The fleet is offered the job through its account's webhook and answers through the
    booking-status hook (contract 5.2). Partner accounts belong to the partners app; what
    makes one a fleet lives here.
    """

    account = models.OneToOneField(
        "partners.Account",
        on_delete=models.CASCADE,
        related_name="fleet",
        limit_choices_to={"kind": "partner"},
    )
    active = models.BooleanField(default=True)
    vehicle_classes = models.JSONField(
        default=list,
        blank=True,
        help_text='Classes the fleet runs, e.g. ["saloon", "mpv"]. Empty: all.',
    )
    max_passengers = models.PositiveSmallIntegerField(default=MAX_PASSENGERS)
    wheelchair_accessible = models.BooleanField(default=False)
    coverage = models.CharField(max_length=200, blank=True, help_text="Area covered, for people.")
    coverage_lat = models.FloatField(null=True, blank=True)
    coverage_lng = models.FloatField(null=True, blank=True)
    coverage_radius_km = models.FloatField(
        null=True, blank=True, help_text="Blank: the whole of Great Britain."
    )
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["account__name"]

    def __str__(self) -> str:
        return f"Fleet of {self.account.name}"


class OperatorLicence(models.Model):
    """The private hire operator licence of an account that accepts jobs.

    UK licensing: a private hire job may only go to a driver and vehicle licensed by the
    same authority as the operator that accepts it. A driver's operator is the account that
    approved them (``Driver.approved_by``).
    """

    account = models.OneToOneField(
        "partners.Account", on_delete=models.CASCADE, related_name="operator_licence"
    )
    licensing_authority = models.CharField(max_length=200)
    licence_number = models.CharField(max_length=50)
    licence_expiry = models.DateField()

    def __str__(self) -> str:
        return f"{self.licence_number} ({self.licensing_authority})"


class OfferStatus(models.TextChoices):
    OPEN = "open"
    ACCEPTED = "accepted"
    DECLINED = "declined"
    EXPIRED = "expired"
    WITHDRAWN = "withdrawn"


class Offer(models.Model):
    """A job offered to one driver (tiers 1-2) or one fleet (tier 3), or a manual assignment."""

    booking = models.ForeignKey(Booking, on_delete=models.CASCADE, related_name="offers")
    round = models.PositiveSmallIntegerField(
        default=1,
        help_text="Dispatch round; a manual re-dispatch after no_driver starts a new one.",
    )
    tier = models.PositiveSmallIntegerField(choices=Tier.choices)
    driver = models.ForeignKey(
        "drivers.Driver", null=True, blank=True, on_delete=models.PROTECT, related_name="offers"
    )
    vehicle = models.ForeignKey(
        "drivers.Vehicle", null=True, blank=True, on_delete=models.PROTECT, related_name="offers"
    )
    fleet = models.ForeignKey(
        PartnerFleet, null=True, blank=True, on_delete=models.PROTECT, related_name="offers"
    )
    # s55A Local Government (Miscellaneous Provisions) Act 1976: the licensed operator the
    # job is subcontracted to when it leaves the local tier; copied onto the booking on accept.
    subcontracted_to = models.ForeignKey(
        "partners.Account", null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    status = models.CharField(max_length=10, choices=OfferStatus.choices, default=OfferStatus.OPEN)
    dead_miles = models.DecimalField(
        max_digits=7,
        decimal_places=1,
        null=True,
        blank=True,
        help_text="Distance from the driver's position to the pickup when offered.",
    )
    actor = models.CharField(max_length=200, blank=True)
    created_at = models.DateTimeField(default=timezone.now)
    expires_at = models.DateTimeField()
    responded_at = models.DateTimeField(null=True, blank=True)
    released_at = models.DateTimeField(
        null=True,
        blank=True,
        help_text="When an accepted job stopped counting towards the driver's job load.",
    )
    # Capacity in time (issue 34): an accepted job keeps its driver busy over this span
    # (dispatch.services.matching.job_busy_window); empty: always (rows from before).
    busy_from = models.DateTimeField(null=True, blank=True)
    busy_until = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["booking", "created_at", "id"]
        constraints = [
            # Seed 1.3: one driver at a time. The database, not Python, holds this line.
            models.UniqueConstraint(
                fields=["booking"], condition=Q(status="open"), name="offer_one_open_per_booking"
            ),
            # A driver sees one job card at a time, so two bookings never wait on one driver.
            models.UniqueConstraint(
                fields=["driver"], condition=Q(status="open"), name="offer_one_open_per_driver"
            ),
            models.UniqueConstraint(
                fields=["booking", "round", "driver"],
                condition=Q(driver__isnull=False),
                name="offer_driver_once_per_round",
            ),
            models.UniqueConstraint(
                fields=["booking", "round", "fleet"],
                condition=Q(fleet__isnull=False),
                name="offer_fleet_once_per_round",
            ),
            models.CheckConstraint(
                condition=Q(driver__isnull=False) | Q(fleet__isnull=False),
                name="offer_has_driver_or_fleet",
            ),
        ]
        indexes = [
            models.Index(fields=["driver", "status"], name="offer_driver_status"),
            models.Index(fields=["status", "expires_at"], name="offer_status_expiry"),
        ]

    def __str__(self) -> str:
        target = self.driver or self.fleet
        return f"Offer {self.pk} of {self.booking_id} to {target} ({self.status})"

    def is_answerable_at(self, moment: datetime) -> bool:
        """Open and not past its deadline: the one test of whether a driver may still
        accept or decline (the timeout task closes the row a little later)."""
        return self.status == OfferStatus.OPEN and moment < self.expires_at


class AttemptOutcome(models.TextChoices):
    SEARCHED = "searched"  # a tier was searched in a round (detail: how many were eligible)
    SKIPPED = "skipped"
    OFFERED = "offered"
    ACCEPTED = "accepted"
    DECLINED = "declined"
    EXPIRED = "expired"
    WITHDRAWN = "withdrawn"
    ASSIGNED = "assigned"
    EXHAUSTED = "exhausted"


class DispatchAttempt(models.Model):
    """The dispatch trail: every candidate considered and what became of it."""

    booking = models.ForeignKey(Booking, on_delete=models.CASCADE, related_name="dispatch_attempts")
    round = models.PositiveSmallIntegerField(default=1)
    tier = models.PositiveSmallIntegerField(choices=Tier.choices, null=True, blank=True)
    outcome = models.CharField(max_length=10, choices=AttemptOutcome.choices)
    reason = models.CharField(max_length=24, choices=SkipReason.choices, blank=True)
    driver = models.ForeignKey(
        "drivers.Driver", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    vehicle = models.ForeignKey(
        "drivers.Vehicle", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    fleet = models.ForeignKey(
        PartnerFleet, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    offer = models.ForeignKey(
        Offer, null=True, blank=True, on_delete=models.SET_NULL, related_name="attempts"
    )
    dead_miles = models.DecimalField(max_digits=7, decimal_places=1, null=True, blank=True)
    detail = models.CharField(max_length=300, blank=True)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["booking", "created_at", "id"]
        indexes = [models.Index(fields=["booking", "round", "tier"], name="attempt_booking_round")]

    def __str__(self) -> str:
        return f"{self.booking_id} r{self.round} t{self.tier} {self.outcome} {self.reason}"


class NotificationChannel(models.TextChoices):
    SMS = "sms"
    WHATSAPP = "whatsapp"


class NotificationKind(models.TextChoices):
    JOB_CARD = "job_card", "Job card"
    CANCELLATION = "cancellation", "Cancellation"
    PICKUP_MOVED = "pickup_moved", "Pickup moved"


class NotificationStatus(models.TextChoices):
    PENDING = "pending"
    SENDING = "sending"
    SENT = "sent"
    FAILED = "failed"


# Seed 8.5: SMS is a pass-through charge of 0.02 GBP; WhatsApp is free.
NOTIFICATION_COST_GBP = {
    NotificationChannel.SMS: Decimal("0.02"),
    NotificationChannel.WHATSAPP: Decimal("0.00"),
}


class NotificationLog(models.Model):
    """Every message sent to a driver by SMS or WhatsApp (seed 6.1): job cards, a
    cancellation of a job they held or were offered, a pickup moved by its flight.

    When the provider accepts an SMS, dispatch records it with billing
    (``billing.services.usage.sms_usage_record``), which passes the 0.02 GBP through
    (seed 8.5). ``cost_gbp`` is set when the provider accepted the message, so failed
    attempts cost nothing.
    """

    driver = models.ForeignKey(
        "drivers.Driver",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="notifications",
    )
    booking = models.ForeignKey(
        Booking, null=True, blank=True, on_delete=models.SET_NULL, related_name="notifications"
    )
    offer = models.ForeignKey(
        Offer, null=True, blank=True, on_delete=models.SET_NULL, related_name="notifications"
    )
    channel = models.CharField(max_length=10, choices=NotificationChannel.choices)
    kind = models.CharField(
        max_length=12, choices=NotificationKind.choices, default=NotificationKind.JOB_CARD
    )
    to = models.CharField(max_length=40)
    body = models.TextField()
    cost_gbp = models.DecimalField(max_digits=6, decimal_places=2, default=Decimal("0.00"))
    status = models.CharField(
        max_length=10, choices=NotificationStatus.choices, default=NotificationStatus.PENDING
    )
    provider_sid = models.CharField(max_length=64, blank=True)
    error = models.CharField(max_length=300, blank=True)
    attempts = models.PositiveSmallIntegerField(default=0)
    created_at = models.DateTimeField(default=timezone.now, db_index=True)
    sent_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [
            # A job card goes out once per offer and channel, however often the task retries.
            models.UniqueConstraint(
                fields=["offer", "channel"], name="notification_once_per_offer"
            ),
            # A driver is told of a booking's cancellation once per channel (issue 34).
            models.UniqueConstraint(
                fields=["booking", "driver", "channel"],
                condition=models.Q(kind="cancellation"),
                name="notification_cancellation_once",
            ),
        ]
        indexes = [
            models.Index(fields=["driver", "channel", "created_at"], name="notification_billing"),
        ]

    def __str__(self) -> str:
        return f"{self.channel} to {self.to} ({self.status})"


class DispatchBooking(Booking):
    """Bookings seen from the dispatch desk: trail, offers and manual assignment (admin)."""

    class Meta:
        proxy = True
        verbose_name = "dispatch board booking"
        verbose_name_plural = "dispatch board"
