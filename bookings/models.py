"""The one shared dispatch table (seed 1.5) and what hangs off a booking.

Every confirmed booking, whichever door it came in through (website, public API, AI
agent, partner, operator, supplier hook), is a row of :class:`Booking`.
"""

from __future__ import annotations

from decimal import Decimal

from django.db import models
from django.db.models import Q
from django.utils import timezone

from pricing.models import FrozenTariffSource


class BookingStatus(models.TextChoices):
    CONFIRMED = "confirmed"
    OFFERED = "offered"
    ACCEPTED = "accepted"
    EN_ROUTE = "en_route"
    ARRIVED = "arrived"
    ON_BOARD = "on_board"
    COMPLETED = "completed"
    CANCELLED = "cancelled"
    NO_SHOW = "no_show"
    NO_DRIVER = "no_driver"


class BookingSource(models.TextChoices):
    WEBSITE = "website"
    API = "api"
    AGENT = "agent"
    PARTNER = "partner"
    OPERATOR = "operator"
    SUPPLIER = "supplier"


class PaymentMethod(models.TextChoices):
    """Stored normalised; the seed's request enums map onto these (contract 3)."""

    CASH = "cash_to_driver"
    CARD = "card_to_driver"
    ACCOUNT = "account"
    BANK_TRANSFER = "bank_transfer"
    DIRECT = "direct_to_driver"


class DispatchQueue(models.TextChoices):
    # Seed section 4 rule 2: operator jobs go to the operator's own dispatch.
    NETWORK = "network"
    OPERATOR = "operator"


class Passenger(models.Model):
    """A passenger known by email: verification state and back-office blocking."""

    email = models.EmailField(unique=True)
    phone = models.CharField(max_length=20, blank=True)
    name = models.CharField(max_length=200, blank=True)
    email_verified_at = models.DateTimeField(null=True, blank=True)
    blocked = models.BooleanField(default=False)
    blocked_reason = models.CharField(max_length=200, blank=True)
    created_at = models.DateTimeField(default=timezone.now)

    def __str__(self) -> str:
        return self.email


class Booking(FrozenTariffSource, models.Model):
    reference = models.CharField(max_length=20, unique=True)
    status = models.CharField(
        max_length=16, choices=BookingStatus.choices, default=BookingStatus.CONFIRMED
    )
    # Every status change bumps this; webhooks carry it so receivers can order events.
    sequence = models.PositiveIntegerField(default=1)
    source = models.CharField(max_length=16, choices=BookingSource.choices)
    account = models.ForeignKey(
        "partners.Account",
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="bookings",
        help_text="The sender: partner, operator, supplier or agent.",
    )
    job_ref = models.CharField(max_length=100, blank=True, help_text="The sender's own reference.")
    quote = models.OneToOneField(
        "pricing.Quote",
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="booking",
        help_text="The quote this booking redeemed; the one-to-one makes redemption single.",
    )
    agent = models.CharField(max_length=100, blank=True, help_text="AI assistant that booked.")
    dispatch_queue = models.CharField(
        max_length=16, choices=DispatchQueue.choices, default=DispatchQueue.NETWORK
    )

    # No index on passenger, vehicle or subcontracted_to: nothing looks bookings up by them
    # and every index costs each of the many INSERTs into this table; only deleting one of
    # those rows (rare, back office) scans.
    passenger = models.ForeignKey(
        Passenger,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="bookings",
        db_index=False,
    )
    passenger_name = models.CharField(max_length=200, blank=True)
    passenger_email = models.EmailField(blank=True)
    passenger_phone = models.CharField(max_length=20, blank=True, help_text="E.164")

    pickup = models.CharField(max_length=300)
    dropoff = models.CharField(max_length=300)
    pickup_lat = models.FloatField(null=True, blank=True)
    pickup_lng = models.FloatField(null=True, blank=True)
    dropoff_lat = models.FloatField(null=True, blank=True)
    dropoff_lng = models.FloatField(null=True, blank=True)
    # Where the fare was measured between (contract 2.1), as the quote resolved them:
    # {label, lat, lng, precision, source}; empty on bookings made before they were kept.
    pickup_place = models.JSONField(default=dict, blank=True)
    dropoff_place = models.JSONField(default=dict, blank=True)
    pickup_time = models.DateTimeField()
    passengers = models.PositiveSmallIntegerField(default=1)
    vehicle_type = models.CharField(max_length=20, default="saloon")
    wheelchair_access = models.BooleanField(default=False)
    flight_number = models.CharField(max_length=20, blank=True)
    notes = models.TextField(blank=True)
    meet_and_greet = models.BooleanField(default=False)

    payment_method = models.CharField(
        max_length=20, choices=PaymentMethod.choices, default=PaymentMethod.CASH
    )
    fare = models.DecimalField(max_digits=10, decimal_places=2)
    currency = models.CharField(max_length=3, default="GBP")
    distance_miles = models.DecimalField(max_digits=8, decimal_places=2, null=True, blank=True)
    duration_minutes = models.PositiveIntegerField(null=True, blank=True)
    distance_source = models.CharField(max_length=8, default="estimate", blank=True)
    applied_rules = models.JSONField(default=list, blank=True)
    # tariffSource (the ``tariff_source`` property, pricing.models.FrozenTariffSource):
    # this part over the snapshot, or the whole object when there is none.
    tariff_source_own = models.JSONField(default=dict, blank=True, db_column="tariff_source")
    # No index: inserting bookings is the hot path, and a snapshot is never deleted.
    tariff_snapshot = models.ForeignKey(
        "pricing.TariffSourceSnapshot",
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="+",
        db_index=False,
    )
    # The fare as settled when the passenger boards: the booked fare plus any waiting beyond
    # the free minutes, itemised like applied_rules ({"code", "label", "amountGBP"}).
    # Null until then (dispatch.services.waiting).
    final_fare = models.DecimalField(max_digits=10, decimal_places=2, null=True, blank=True)
    # Told by the passenger to the driver to start the trip (bookings.pickup_codes); empty
    # for bookings from an account that opted out, and for bookings made before codes.
    pickup_code = models.CharField(max_length=4, blank=True, default="")
    final_fare_lines = models.JSONField(default=list, blank=True)

    driver = models.ForeignKey(
        "drivers.Driver", null=True, blank=True, on_delete=models.PROTECT, related_name="bookings"
    )
    vehicle = models.ForeignKey(
        "drivers.Vehicle",
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="bookings",
        db_index=False,
    )
    # s55A Local Government (Miscellaneous Provisions) Act 1976: when a job is passed to
    # another licensed operator, the record names that operator.
    subcontracted_to = models.ForeignKey(
        "partners.Account",
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="subcontracted_bookings",
        db_index=False,
    )
    cancel_reason = models.CharField(max_length=500, blank=True)
    # The booking row is dispatch's outbox: a confirmed network booking with no start time
    # is waiting for the dispatcher (dispatch/relay.py), which sets it when it claims one.
    dispatch_started_at = models.DateTimeField(null=True, blank=True, editable=False)
    # The X-Request-ID of the request that made the booking (contract 10.1): the
    # dispatcher publishes its dispatch task under it, so that the workers' log lines for
    # the booking carry the id of the request that started them.
    request_id = models.CharField(max_length=200, blank=True, default="", editable=False)
    # Issue 15: the dispatcher claims a booking only once its dispatch window has opened
    # (bookings.policies.dispatch_window_opens_at, set on insert and on amendment).
    dispatch_opens_at = models.DateTimeField(default=timezone.now, editable=False)
    # Issue 34: set when the dispatch window closed with no driver (the booking then waits
    # on the desk's queue of jobs that need a human; ``booking.unassigned`` went out).
    unassigned_at = models.DateTimeField(null=True, blank=True, editable=False)
    created_at = models.DateTimeField(default=timezone.now, db_index=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["-created_at"]
        constraints = [
            # Seed section 4 rule 1: intake is idempotent on the sender's job reference.
            models.UniqueConstraint(
                fields=["account", "job_ref"],
                condition=~Q(job_ref=""),
                name="booking_unique_job_ref_per_account",
            ),
        ]
        indexes = [
            models.Index(fields=["status", "pickup_time"]),
            # The daily intake limit counts a sender's jobs booked today: one range of this
            # index rather than every booking the sender ever made.
            models.Index(
                fields=["account", "created_at"],
                condition=~Q(job_ref=""),
                name="booking_intake_by_day",
            ),
            # The reconciliation feed (contract 4.2): a sender's jobs in (updated_at, id)
            # order from a time or a cursor, one range of this index.
            models.Index(
                fields=["account", "updated_at", "id"],
                condition=~Q(job_ref=""),
                name="booking_feed_by_change",
            ),
            # The dispatcher's queue: only the bookings still waiting for it, in the order
            # their windows open, so claiming reads only the entries whose window is open
            # however many bookings (prebooked ones included) the table holds.
            models.Index(
                fields=["dispatch_opens_at", "id"],
                condition=Q(
                    dispatch_started_at__isnull=True,
                    status=BookingStatus.CONFIRMED,
                    dispatch_queue=DispatchQueue.NETWORK,
                ),
                name="booking_dispatch_pending",
            ),
            # Re-dispatch (issue 34): the bookings without a driver whose window is open,
            # by pickup time, whatever the size of the table.
            models.Index(
                fields=["pickup_time", "id"],
                condition=Q(status=BookingStatus.NO_DRIVER, unassigned_at__isnull=True),
                name="booking_redispatch_due",
            ),
        ]

    def __str__(self) -> str:
        return self.reference

    @property
    def fare_due(self) -> Decimal:
        """What the passenger owes: the final fare once settled (waiting included), else
        the booked fare."""
        return self.final_fare if self.final_fare is not None else self.fare


class BookingEvent(models.Model):
    """Append-only log of everything that happened to a booking (contract 3.1)."""

    # The (booking, sequence) unique index below already leads with booking.
    booking = models.ForeignKey(
        Booking, on_delete=models.CASCADE, related_name="events", db_index=False
    )
    sequence = models.PositiveIntegerField()
    type = models.CharField(max_length=40)  # booking.created, booking.status_changed, ...
    from_status = models.CharField(max_length=16, blank=True)
    to_status = models.CharField(max_length=16, blank=True)
    actor = models.CharField(max_length=200, blank=True)
    detail = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["booking", "sequence"]
        constraints = [
            models.UniqueConstraint(fields=["booking", "sequence"], name="booking_event_sequence")
        ]

    def __str__(self) -> str:
        return f"{self.booking_id} #{self.sequence} {self.type}"


class FlightStatus(models.TextChoices):
    SCHEDULED = "scheduled"
    DELAYED = "delayed"
    LANDED = "landed"
    CANCELLED = "cancelled"
    DIVERTED = "diverted"


class FlightArrival(models.Model):
    """The flight an airport pickup meets, as last reported (issue 15).

    Written by ``dispatch.services.flights`` only: from the flight status provider when one
    is configured, else from partners, operators and the back office. ``landing_at`` is the
    actual landing when known, else the latest estimate; the pickup follows it.
    """

    booking = models.OneToOneField(
        Booking, on_delete=models.CASCADE, related_name="flight_arrival", primary_key=True
    )
    flight_number = models.CharField(max_length=20)
    airport = models.CharField(max_length=3, blank=True, help_text="IATA code of the pickup.")
    status = models.CharField(
        max_length=16, choices=FlightStatus.choices, default=FlightStatus.SCHEDULED
    )
    scheduled_arrival = models.DateTimeField(null=True, blank=True)
    landing_at = models.DateTimeField(null=True, blank=True)
    landed = models.BooleanField(default=False, help_text="landing_at is the actual landing.")
    terminal = models.CharField(max_length=20, blank=True)
    # The pickup time as booked, before any move: the moves are measured from it.
    booked_pickup_time = models.DateTimeField()
    source = models.CharField(max_length=100, blank=True, help_text="Who reported last.")
    updated_at = models.DateTimeField(default=timezone.now)

    def __str__(self) -> str:
        return f"{self.flight_number} for {self.booking_id}"


class ImmutableRecordError(Exception):
    pass


class PaymentRecordQuerySet(models.QuerySet):
    def update(self, **kwargs):
        raise ImmutableRecordError("Payment records are immutable.")

    def delete(self):
        raise ImmutableRecordError("Payment records are immutable.")


class PaymentRecord(models.Model):
    """One settlement event; append-only (seed 2.8, 6.3). Updates and deletes are refused
    here and, on PostgreSQL, by a trigger (see the migration)."""

    class Kind(models.TextChoices):
        PAYMENT = "payment"
        REFUND = "refund"
        FEE = "fee"

    booking = models.ForeignKey(Booking, on_delete=models.PROTECT, related_name="payment_records")
    kind = models.CharField(max_length=10, choices=Kind.choices, default=Kind.PAYMENT)
    amount = models.DecimalField(max_digits=10, decimal_places=2)
    method = models.CharField(max_length=20)
    reference = models.CharField(max_length=100, blank=True)
    processor_fee = models.DecimalField(
        max_digits=8,
        decimal_places=2,
        default=Decimal("0.00"),
        help_text="Card processor fee passed through to the driver's weekly invoice.",
    )
    driver = models.ForeignKey(
        "drivers.Driver",
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="payment_records",
    )
    occurred_at = models.DateTimeField(default=timezone.now, db_index=True)
    created_at = models.DateTimeField(default=timezone.now)

    objects = PaymentRecordQuerySet.as_manager()

    class Meta:
        ordering = ["occurred_at", "id"]
        indexes = [
            models.Index(fields=["driver", "occurred_at"]),
            # Billing's weekly run finds records that arrived after their week was invoiced
            # (billing.services.late_payments.late_payment_adjustments) by arrival time.
            models.Index(fields=["created_at"], name="payment_record_arrival"),
        ]

    def __str__(self) -> str:
        return f"{self.kind} {self.amount} on {self.booking_id}"

    def save(self, *args, **kwargs):
        if self.pk is not None and not kwargs.get("force_insert"):
            raise ImmutableRecordError("Payment records are immutable; append a new record.")
        super().save(*args, **kwargs)

    def delete(self, *args, **kwargs):
        raise ImmutableRecordError("Payment records are immutable; append a refund instead.")


class EmailConfirmation(models.Model):
    """A one-time link that marks a passenger email verified (contract 3.4)."""

    passenger = models.ForeignKey(Passenger, on_delete=models.CASCADE, related_name="confirmations")
    token = models.CharField(max_length=64, unique=True)
    booking = models.ForeignKey(Booking, null=True, blank=True, on_delete=models.CASCADE)
    created_at = models.DateTimeField(default=timezone.now)
    used_at = models.DateTimeField(null=True, blank=True)

    def __str__(self) -> str:
        return f"{self.passenger} ({'used' if self.used_at else 'open'})"
