"""Tariffs as councils publish them, and quotes frozen at issue (contract 2.1, 2.3, 2.4)."""

from __future__ import annotations

import uuid

from django.conf import settings
from django.db import connections, models
from django.utils import timezone

from pricing.tariff_snapshots import (
    jsonb_ordered,
    source_in_order,
    tariff_source_merge,
)
from pricing.vehicles import VehicleType


class TariffKind(models.TextChoices):
    # Contract 2.1: tariffSource.kind is one of these.
    COUNCIL = "council", "Council (hackney carriage table)"
    OPERATOR = "operator", "Operator's approved rate"
    PARTNER = "partner", "Partner's approved rate"
    WORLDWIDE = "worldwide", "Worldwide rate"


class TariffLifecycle(models.TextChoices):
    """Whether a table may price journeys at all; derived from the source's status at load,
    editable in the admin. Only ``current`` tables are selected, and only for pickups
    between their ``effective_from`` and ``effective_to`` (issue 21: dated tables)."""

    CURRENT = "current", "Current"
    HISTORICAL = "historical", "Historical (superseded)"
    PROPOSED = "proposed", "Proposed (not in force)"
    PARTIAL = "partial", "Partial (figures missing)"


class TariffBasis(models.TextChoices):
    """How a fare was reached (contract 2.1 ``tariffSource.basis``), best first: the
    order of the choices is the order :func:`pricing.selectors.tariff_select` prefers."""

    TABLE = "table", "The authority's complete table"
    UPRATED = "uprated", "Last complete table with every later published change applied"
    CALIBRATED = "calibrated", "The authority's published figures fitted to a reference meter"
    NETWORK = "network", "The network's approved rate"


BASIS_RANK: dict[str, int] = {value: rank for rank, value in enumerate(TariffBasis.values)}
ESTIMATED_BASES = frozenset({TariffBasis.UPRATED, TariffBasis.CALIBRATED})


class Tariff(models.Model):
    reference = models.SlugField(max_length=80, unique=True, help_text="e.g. manchester-2023-09")
    name = models.CharField(max_length=200)
    kind = models.CharField(max_length=16, choices=TariffKind.choices, default=TariffKind.COUNCIL)
    authority = models.CharField(
        max_length=200, help_text="Licensing authority (council) or the operator that sets it."
    )
    account = models.ForeignKey(
        "partners.Account",
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="tariffs",
        help_text="Operator's or partner's own approved rate.",
    )
    lifecycle = models.CharField(
        max_length=16, choices=TariffLifecycle.choices, default=TariffLifecycle.CURRENT
    )
    basis = models.CharField(
        max_length=12,
        choices=TariffBasis.choices,
        default=TariffBasis.TABLE,
        help_text="How its fares are reached: a council's own table, an estimate built from "
        "the authority's published figures (uprated, calibrated), or the network's rate.",
    )
    estimate = models.JSONField(
        default=dict,
        blank=True,
        help_text='For an estimated basis: {"method", "errorPct", "sources": [{"url", '
        '"publisher", "date", "secondary"}]} (contract 2.1).',
    )
    status_text = models.CharField(
        max_length=300, blank=True, help_text="The source's own status wording, verbatim."
    )
    effective_from = models.DateField(
        null=True,
        blank=True,
        help_text="First day (Europe/London) the table prices journeys; blank: not known.",
    )
    effective_to = models.DateField(
        null=True,
        blank=True,
        help_text="The day its replacement came into force: from then on it is historical "
        "and prices no journey. Blank while in force.",
    )
    effective_date_text = models.CharField(
        max_length=100, blank=True, help_text="As published when not a full date."
    )
    checked_on = models.DateField(
        null=True,
        blank=True,
        help_text="When the figures were last checked against their publisher (manage.py "
        "tariffs_stale lists tables not checked for 12 months).",
    )
    areas_gss = models.JSONField(
        default=list,
        blank=True,
        help_text="ONS codes (GSS) of the local authority districts the table covers, e.g. "
        '["E08000035"] (pricing.licensing); empty: every district of the authority.',
    )
    sources = models.JSONField(default=list, blank=True, help_text='[{"title", "address"}]')
    uncertain = models.JSONField(
        default=list, blank=True, help_text="What the source left unclear."
    )
    notes = models.TextField(blank=True)
    free_waiting_minutes = models.PositiveSmallIntegerField(
        null=True,
        blank=True,
        help_text="Free waiting at the pickup before the waiting rate applies; blank: the "
        "WAITING_FREE_MINUTES setting.",
    )
    is_active = models.BooleanField(default=True, help_text="Switch off to stop using it.")
    raw = models.JSONField(
        default=dict, blank=True, help_text="The record as loaded, kept for provenance."
    )
    created_at = models.DateTimeField(default=timezone.now)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["authority", "-effective_from", "reference"]
        indexes = [models.Index(fields=["kind", "lifecycle", "is_active"])]

    def __str__(self) -> str:
        return f"{self.authority}: {self.reference}"


class EstimatedTariffManager(models.Manager):
    def get_queryset(self):
        return super().get_queryset().filter(basis__in=ESTIMATED_BASES)


class EstimatedTariff(Tariff):
    """The estimated tables (basis uprated or calibrated), listed apart in the back office
    with their error and the age of the figures they rest on (issue 33)."""

    objects = EstimatedTariffManager()

    class Meta:
        proxy = True
        verbose_name = "estimated tariff"


class TariffBand(models.Model):
    """One tariff of a table (Tariff 1 day, Tariff 2 night, ...), or a distance band.

    ``windows`` and ``excludes`` are lists of::

        {"type": "weekly", "days": ["Mon", ...], "start": "22:00", "end": "06:00"}
        {"type": "weekly_span", "from": "Fri 18:00", "to": "Mon 06:00"}
        {"type": "annual", "from": "12-24 20:00", "to": "12-27 06:00"}
        {"type": "public_holiday"}

    evaluated in Europe/London time; an end at or before the start runs past midnight.
    """

    tariff = models.ForeignKey(Tariff, on_delete=models.CASCADE, related_name="bands")
    position = models.PositiveSmallIntegerField(default=0)
    name = models.CharField(max_length=120)
    windows = models.JSONField(default=list, blank=True)
    excludes = models.JSONField(default=list, blank=True)
    # Distances are kept exact: a yard is 0.9144 m, so a table written in yards (to a
    # hundredth of a yard) converts without rounding; a rounded yard puts a whole mile one
    # step past the increment boundary the council's own examples sit on (issue 33).
    applies_after_distance_m = models.DecimalField(
        max_digits=13,
        decimal_places=6,
        null=True,
        blank=True,
        help_text="Distance band: prices only the distance beyond this (e.g. TfL Tariff 4).",
    )
    until_distance_m = models.DecimalField(max_digits=13, decimal_places=6, null=True, blank=True)
    flag_fall_gbp = models.DecimalField(max_digits=8, decimal_places=2, null=True, blank=True)
    flag_fall_distance_m = models.DecimalField(
        max_digits=13, decimal_places=6, null=True, blank=True
    )
    flag_fall_seconds = models.DecimalField(max_digits=8, decimal_places=2, null=True, blank=True)
    increment_distance_m = models.DecimalField(
        max_digits=13, decimal_places=6, null=True, blank=True
    )
    increment_price_gbp = models.DecimalField(max_digits=8, decimal_places=2, null=True, blank=True)
    waiting_seconds_per_increment = models.DecimalField(
        max_digits=8, decimal_places=2, null=True, blank=True
    )
    waiting_increment_price_gbp = models.DecimalField(
        max_digits=8,
        decimal_places=2,
        null=True,
        blank=True,
        help_text=(
            "Price of one waiting increment where the table charges waiting in its own step "
            "(South Ribble: 10p per 30 s, distance in 20p steps); empty: the increment price."
        ),
    )
    multiplier_of = models.CharField(
        max_length=120, blank=True, help_text="Band whose fare this band multiplies."
    )
    multiplier = models.DecimalField(max_digits=6, decimal_places=3, null=True, blank=True)
    source_units = models.CharField(max_length=100, blank=True)
    uncertain = models.JSONField(default=list, blank=True)
    applies_raw = models.JSONField(default=dict, blank=True, help_text="As published.")

    class Meta:
        ordering = ["tariff", "position"]
        constraints = [
            models.UniqueConstraint(fields=["tariff", "position"], name="tariff_band_position_uniq")
        ]

    def __str__(self) -> str:
        return self.name


class ExtraKind(models.TextChoices):
    PER_PASSENGER = "per_passenger", "Per passenger beyond the threshold"
    PARTY_FLAT = "party_flat", "Flat, when the party exceeds the threshold"
    PARTY_PERCENT = "party_percent", "Percent of metered fare, party over threshold"
    TIME_SURCHARGE = "time_surcharge", "Timed surcharge (night, weekend, holiday, festive)"
    AIRPORT_PICKUP = "airport_pickup", "Airport pick-up charge"
    AIRPORT_DROPOFF = "airport_dropoff", "Airport drop-off charge"
    STATION_PICKUP = "station_pickup", "Pick-up charge at a named place (a station barrier)"
    ON_REQUEST = "on_request", "Not applied to quotes (soiling, luggage, ...)"


class TariffExtra(models.Model):
    tariff = models.ForeignKey(Tariff, on_delete=models.CASCADE, related_name="extras")
    position = models.PositiveSmallIntegerField(default=0)
    name = models.CharField(max_length=200)
    kind = models.CharField(max_length=20, choices=ExtraKind.choices)
    amount_gbp = models.DecimalField(max_digits=8, decimal_places=2, null=True, blank=True)
    max_gbp = models.DecimalField(max_digits=8, decimal_places=2, null=True, blank=True)
    percent = models.DecimalField(max_digits=6, decimal_places=2, null=True, blank=True)
    passenger_threshold = models.PositiveSmallIntegerField(
        default=0, help_text="Passengers included before the extra applies."
    )
    windows = models.JSONField(default=list, blank=True, help_text="For timed surcharges.")
    place = models.CharField(
        max_length=120,
        blank=True,
        help_text="For a pick-up charge at a named place: the place as the gazetteer labels "
        "it (e.g. Manchester Piccadilly).",
    )
    uncertain = models.BooleanField(default=False)
    status_text = models.CharField(max_length=100, blank=True)
    raw = models.JSONField(default=dict, blank=True)

    class Meta:
        ordering = ["tariff", "position"]

    def __str__(self) -> str:
        return self.name


class TariffSourceSnapshot(models.Model):
    """What a tariff contributes to tariffSource (:func:`pricing.catalogue.tariff_source`),
    stored once by the SHA-256 of its canonical JSON (:mod:`pricing.tariff_snapshots`).

    Immutable: written when the tariff is saved (INSERT ... ON CONFLICT DO NOTHING),
    never changed nor deleted; quotes and bookings priced on it point here.
    """

    digest = models.CharField(max_length=64, primary_key=True)
    content = models.JSONField()

    def __str__(self) -> str:
        return self.digest


# Snapshot content by digest, per process (rows never change), in SOURCE_KEYS order.
_snapshot_contents: dict[str, dict] = {}


def snapshot_content_remember(digest: str, content: dict) -> None:
    """Keep ``content`` (a compiled tariff's source, as priced) for ``digest``."""
    _snapshot_contents[digest] = content


def snapshot_content(digest: str) -> dict:
    """The content of snapshot ``digest``: read once per process."""
    content = _snapshot_contents.get(digest)
    if content is None:
        row = TariffSourceSnapshot.objects.get(pk=digest)
        content = _snapshot_contents[digest] = source_in_order(row.content)
    return content


class FrozenTariffSource:
    """``tariff_source`` of a model that stores it as ``tariff_source_own`` over an
    optional ``tariff_snapshot`` (a quote, a booking): the whole object as priced.

    A row with no snapshot (all rows before snapshots, and every partner fare) holds the
    whole object in ``tariff_source_own``. Assigning ``tariff_source`` stores a whole
    copy. A row read from PostgreSQL shows its keys in jsonb order, as a whole copy would.
    """

    _tariff_source_jsonb = False

    @classmethod
    def from_db(cls, db, field_names, values):
        instance = super().from_db(db, field_names, values)
        instance._tariff_source_jsonb = connections[db].vendor == "postgresql"
        return instance

    def refresh_from_db(self, using=None, fields=None, from_queryset=None):
        super().refresh_from_db(using=using, fields=fields, from_queryset=from_queryset)
        self._tariff_source_jsonb = connections[self._state.db].vendor == "postgresql"

    @property
    def tariff_source(self) -> dict:
        own = self.tariff_source_own
        if self.tariff_snapshot_id is None:
            return own
        merged = tariff_source_merge(snapshot_content(self.tariff_snapshot_id), own)
        return jsonb_ordered(merged) if self._tariff_source_jsonb else merged

    @tariff_source.setter
    def tariff_source(self, value: dict) -> None:
        self.tariff_source_own = value
        self.tariff_snapshot_id = None

    def tariff_source_copy(self, other: FrozenTariffSource) -> None:
        """Hold ``other``'s tariffSource as it shows it (a booking redeeming a quote)."""
        self.tariff_source_own = other.tariff_source_own
        self.tariff_snapshot_id = other.tariff_snapshot_id
        self._tariff_source_jsonb = other._tariff_source_jsonb


class Quote(FrozenTariffSource, models.Model):
    """A priced journey; the fare and its breakdown are frozen at issue (contract 2.4).

    Redeemed once: bookings.Booking.quote is a OneToOneField to this model.
    """

    class Source(models.TextChoices):
        V1 = "v1", "POST /api/public/v1/quote"
        ALIAS = "alias", "POST /api/public/quotes/estimate"
        SERVICE = "service", "Internal"

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    source = models.CharField(max_length=10, choices=Source.choices, default=Source.SERVICE)
    pickup = models.CharField(max_length=300)
    pickup_label = models.CharField(max_length=300)
    pickup_lat = models.FloatField()
    pickup_lng = models.FloatField()
    dropoff = models.CharField(max_length=300)
    dropoff_label = models.CharField(max_length=300)
    dropoff_lat = models.FloatField()
    dropoff_lng = models.FloatField()
    # The places the fare was measured between (contract 2.1 pickupPlace/dropoffPlace):
    # {label, lat, lng, precision, source}; empty on quotes issued before they were kept.
    pickup_place = models.JSONField(default=dict, blank=True)
    dropoff_place = models.JSONField(default=dict, blank=True)
    passengers = models.PositiveSmallIntegerField()
    vehicle_type = models.CharField(max_length=16, choices=VehicleType.choices)
    depart_at = models.DateTimeField()
    # Asked for "as soon as possible" (no departAt): redeeming it books a pickup at the
    # time of booking, not at ``depart_at`` (contract 3).
    asap = models.BooleanField(default=False)
    meet_and_greet = models.BooleanField(default=False)
    worldwide = models.BooleanField(default=False)
    fare = models.DecimalField(max_digits=10, decimal_places=2)
    currency = models.CharField(max_length=3, default="GBP")
    applied_rules = models.JSONField(default=list)
    # tariffSource (the ``tariff_source`` property): this part over the snapshot, or the
    # whole object when there is none (FrozenTariffSource).
    tariff_source_own = models.JSONField(default=dict, db_column="tariff_source")
    # No index: inserting quotes is the hot path, and a snapshot is never deleted.
    tariff_snapshot = models.ForeignKey(
        TariffSourceSnapshot,
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="+",
        db_index=False,
    )
    distance_miles = models.DecimalField(max_digits=8, decimal_places=1)
    duration_minutes = models.PositiveIntegerField()
    # Contract 2.1: "road" when a routing backend measured the journey, else "estimate".
    distance_source = models.CharField(
        max_length=8,
        choices=[("road", "Road router"), ("estimate", "Estimate")],
        default="estimate",
    )
    account = models.ForeignKey(
        "partners.Account",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="quotes",
    )
    created_at = models.DateTimeField(default=timezone.now)
    # Not indexed: nothing filters or orders quotes by expiry (is_expired reads the row).
    expires_at = models.DateTimeField()
    redeemed_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"{self.pk} £{self.fare} {self.pickup} -> {self.dropoff}"

    def is_expired(self, now=None) -> bool:
        return (now or timezone.now()) >= self.expires_at


class TariffPublication(models.Model):
    """One version of a council tariff or operator rate as connected dispatch platforms
    receive it (contract 5.3): the ``data`` of its ``tariff.updated`` event, frozen.

    Append-only; the highest ``version`` of a reference is what platforms hold now. Keyed
    by the reference (``tariffSource.reference`` in quotes), not a foreign key, so that
    the withdrawal of a deleted tariff outlives it. ``content_hash`` covers everything
    but the version: publishing unchanged figures again publishes nothing.
    """

    reference = models.SlugField(max_length=80, help_text="tariffId: the tariff's reference.")
    version = models.PositiveIntegerField()
    content_hash = models.CharField(max_length=64)
    withdrawn = models.BooleanField(default=False)
    data = models.JSONField(help_text="The tariff.updated event's data, exactly as sent.")
    published_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["reference", "-version"]
        constraints = [
            models.UniqueConstraint(
                fields=["reference", "version"], name="tariff_publication_version"
            )
        ]

    def __str__(self) -> str:
        return f"{self.reference} v{self.version}{' (withdrawn)' if self.withdrawn else ''}"


class SubmissionStatus(models.TextChoices):
    PENDING = "pending", "Pending: awaits a staff check"
    CHECKED = "checked", "Checked: awaits a second staff member's approval"
    APPROVED = "approved", "Approved: live as a new table"
    REJECTED = "rejected", "Rejected"


class SubmitterKind(models.TextChoices):
    DRIVER = "driver", "Driver"
    OPERATOR = "operator", "Licensed operator"


def _submission_upload_to(submission: TariffSubmission, filename: str) -> str:
    # The name the phone gave is not kept (it can carry a person's name or a date); the
    # extension is the one the content was recognised as (pricing.submissions).
    extension = filename.rsplit(".", 1)[-1].lower() if "." in filename else "bin"
    return f"tariff-submissions/{uuid.uuid4().hex}.{extension}"


class TariffSubmission(models.Model):
    """A council's table sent in by the trade (issue 33): a driver in the driver app or a
    licensed operator on the operator page sends the figures in the registry's form, the
    date the table came into force, the card's own example fares and a photo of the
    table. One staff member checks it, a different one approves it; the approval creates
    a new dated :class:`Tariff` (``pricing.submissions``)."""

    authority = models.CharField(max_length=200, help_text="The licensing authority.")
    effective_from = models.DateField(help_text="The date the table came into force.")
    figures = models.JSONField(
        help_text="Bands and extras in the published form (tariff.updated's field names)."
    )
    examples = models.JSONField(
        default=list,
        blank=True,
        help_text='The fares the card prints: [{"miles", "fareGBP", "band"}].',
    )
    photo = models.FileField(upload_to=_submission_upload_to, max_length=200)
    photo_type = models.CharField(max_length=40, help_text="The type its content was read as.")
    photo_sha256 = models.CharField(
        max_length=64, help_text="Of the file as sent: the same file sent again is one table."
    )
    submitter_kind = models.CharField(max_length=10, choices=SubmitterKind.choices)
    submitter_name = models.CharField(max_length=200)
    submitted_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        related_name="tariff_submissions",
        help_text="The driver's or the operator's login.",
    )
    account = models.ForeignKey(
        "partners.Account",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="tariff_submissions",
        help_text="The operator that sent it.",
    )
    status = models.CharField(
        max_length=10, choices=SubmissionStatus.choices, default=SubmissionStatus.PENDING
    )
    checked_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    checked_at = models.DateTimeField(null=True, blank=True)
    decided_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="+",
        help_text="Who approved or rejected it.",
    )
    decided_at = models.DateTimeField(null=True, blank=True)
    rejection_reason = models.TextField(blank=True)
    tariff = models.OneToOneField(
        Tariff,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="submission",
        help_text="The table its approval created.",
    )
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["-created_at"]
        indexes = [models.Index(fields=["submitted_by", "created_at"])]
        permissions = [
            ("check_tariffsubmission", "Can check a table submitted by the trade"),
            ("approve_tariffsubmission", "Can approve a checked table (a second person)"),
            ("reject_tariffsubmission", "Can reject a table submitted by the trade"),
        ]
        constraints = [
            # A retry (the same file from the same login while the first awaits review)
            # is the first submission, never a second (pricing.submissions).
            models.UniqueConstraint(
                fields=["submitted_by", "photo_sha256"],
                condition=models.Q(status__in=["pending", "checked"]),
                name="tariff_submission_once",
            ),
            # No submission goes live without a second person (issue 33), in the database
            # as well as in the service.
            models.CheckConstraint(
                condition=~models.Q(status="approved")
                | (
                    models.Q(checked_by__isnull=False, decided_by__isnull=False)
                    & ~models.Q(checked_by=models.F("decided_by"))
                    & ~models.Q(submitted_by=models.F("decided_by"))
                ),
                name="tariff_submission_two_people",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.authority} from {self.effective_from} ({self.get_status_display()})"
