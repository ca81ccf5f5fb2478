"""Licensed drivers, their vehicles and the corridors national drivers cover.

Seed 1.3 (dispatch tiers and filters) and seed section 3 (driver account stages:
sign-up -> approval by an operator -> free trial -> billed).
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils import timezone

from pricing.vehicles import VehicleType


class DriverStage(models.TextChoices):
    # Seed section 3: sign-up -> approval by an operator -> free trial -> billed.
    SIGNED_UP = "signed_up"
    APPROVED = "approved"
    TRIAL = "trial"
    BILLED = "billed"
    SUSPENDED = "suspended"


class NetworkTier(models.TextChoices):
    LOCAL = "local"  # tier 1: within the base city's operating radius
    NATIONAL = "national"  # tier 2: national network drivers covering a corridor


class Driver(models.Model):
    user = models.OneToOneField(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="driver",
    )
    name = models.CharField(max_length=200)
    phone = models.CharField(max_length=20, help_text="E.164; job cards go here by SMS/WhatsApp")
    email = models.EmailField(blank=True)
    stage = models.CharField(
        max_length=16, choices=DriverStage.choices, default=DriverStage.SIGNED_UP
    )
    approved_at = models.DateTimeField(null=True, blank=True)
    approved_by = models.ForeignKey(
        "partners.Account",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="approved_drivers",
        help_text="The licensed operator that approved the driver.",
    )
    operator = models.ForeignKey(
        "partners.Account",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="fleet_drivers",
        help_text="Operator whose own fleet the driver belongs to.",
    )

    licensing_authority = models.CharField(max_length=200)
    licence_number = models.CharField(max_length=50)
    licence_expiry = models.DateField()

    base_city = models.CharField(max_length=100)
    base_lat = models.FloatField()
    base_lng = models.FloatField()
    operating_radius_km = models.FloatField(default=25)
    network = models.CharField(
        max_length=16, choices=NetworkTier.choices, default=NetworkTier.LOCAL
    )
    corridors = models.JSONField(
        default=list,
        blank=True,
        help_text='Corridor labels shown to the driver, e.g. ["leeds-london"]. Matching uses '
        "the driver's Corridor rows (end points with a radius).",
    )

    online = models.BooleanField(default=False)
    last_lat = models.FloatField(null=True, blank=True)
    last_lng = models.FloatField(null=True, blank=True)
    last_seen_at = models.DateTimeField(null=True, blank=True)
    # The live position's direction of travel and when the app measured it (POST
    # /v1/driver/location); booking.driver_location events carry the latest one only.
    last_heading = models.FloatField(null=True, blank=True, help_text="Degrees from north.")
    last_position_at = models.DateTimeField(null=True, blank=True)
    current_jobs = models.PositiveSmallIntegerField(default=0)
    max_jobs = models.PositiveSmallIntegerField(default=1)
    # Seed 8.5: a high-volume driver's own maps API key, billed to them by its provider and
    # used for the routing of their jobs. Stored encrypted (core.encryption), never shown
    # again once saved: set it through drivers.services.driver_maps_key_set.
    maps_api_key_encrypted = models.TextField(blank=True, default="", editable=False)
    # Seed 1: the passenger may pay "the driver's own payment link" (their card processor's
    # page); the pay-the-driver page shows it. https only: set through
    # drivers.services.driver_payment_link_set.
    payment_link = models.URLField(
        max_length=300,
        blank=True,
        default="",
        help_text="The driver's own card-processor payment link (https), shown to their "
        "passengers on the pay-the-driver page.",
    )
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["name"]
        indexes = [
            # The matcher's bounding box (dispatch.services.matching): equality on online,
            # range on latitude, longitude filtered inside the index.
            models.Index(fields=["online", "last_lat", "last_lng"], name="driver_online_position"),
            models.Index(fields=["stage"], name="driver_stage"),
        ]
        # No check that current_jobs <= max_jobs: the limit counts the jobs whose time
        # overlaps (issue 34), so a driver may hold a job now and another this evening;
        # dispatch.services.offers.trail._driver_take_job enforces it under the driver's lock.

    def __str__(self) -> str:
        return self.name

    @property
    def is_approved(self) -> bool:
        return self.approved_at is not None and self.stage in APPROVED_STAGES


# Jobs are offered only after approval (seed section 3); suspended drivers get none.
APPROVED_STAGES = (DriverStage.APPROVED, DriverStage.TRIAL, DriverStage.BILLED)


class Corridor(models.Model):
    """A route a national network driver covers (seed 1.3 tier 2), in either direction.

    A job is on the corridor when its pickup lies within ``radius_km`` of one end and its
    dropoff within ``radius_km`` of the other.
    """

    driver = models.ForeignKey(Driver, on_delete=models.CASCADE, related_name="corridor_routes")
    origin = models.CharField(max_length=100)
    origin_lat = models.FloatField()
    origin_lng = models.FloatField()
    destination = models.CharField(max_length=100)
    destination_lat = models.FloatField()
    destination_lng = models.FloatField()
    radius_km = models.FloatField(default=30)

    class Meta:
        ordering = ["origin", "destination"]

    def __str__(self) -> str:
        return f"{self.origin} - {self.destination}"


class Vehicle(models.Model):
    driver = models.ForeignKey(Driver, on_delete=models.CASCADE, related_name="vehicles")
    make = models.CharField(max_length=50)
    model = models.CharField(max_length=50)
    colour = models.CharField(max_length=30)
    registration = models.CharField(max_length=12)
    vehicle_class = models.CharField(
        max_length=20, choices=VehicleType.choices, default=VehicleType.SALOON
    )
    seats = models.PositiveSmallIntegerField(default=4)
    wheelchair_accessible = models.BooleanField(default=False)
    licensing_authority = models.CharField(max_length=200)
    plate_number = models.CharField(max_length=50, blank=True)
    plate_expiry = models.DateField()
    active = models.BooleanField(default=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["registration"], name="vehicle_unique_registration")
        ]

    def __str__(self) -> str:
        return f"{self.registration} ({self.make} {self.model})"


class PositionSample(models.Model):
    """The sampled trail of a driver holding a job (issue 27): the evidence for arrival,
    no-show and dead mileage, kept in the system of record while live positions stay in
    the position store (``drivers.positions``).

    At most one row per driver per ``POSITIONS_TRAIL_SECONDS`` slot (``slot`` is the fix's
    Unix time divided by it): the unique constraint holds it under any concurrency, and
    the ingest asks the database only when a new slot starts.
    """

    driver = models.ForeignKey(Driver, on_delete=models.CASCADE, related_name="position_samples")
    booking = models.ForeignKey(
        "bookings.Booking",
        on_delete=models.CASCADE,
        related_name="position_samples",
        help_text="The job the driver held when the fix was measured.",
    )
    slot = models.BigIntegerField()
    at = models.DateTimeField(help_text="When the device measured the fix.")
    lat = models.FloatField()
    lng = models.FloatField()
    heading = models.FloatField(null=True, blank=True)
    speed = models.FloatField(null=True, blank=True, help_text="Metres per second.")
    accuracy = models.FloatField(null=True, blank=True, help_text="Metres.")

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["driver", "slot"], name="position_sample_one_per_driver_slot"
            )
        ]
        indexes = [models.Index(fields=["booking", "at"], name="position_sample_booking_at")]

    def __str__(self) -> str:
        return f"driver {self.driver_id} at {self.at:%H:%M:%S}"


class TrackerDevice(models.Model):
    """A driver's own tracking app speaking the OsmAnd protocol (Traccar Client): its
    device identifier and a token, stored as a SHA-256 digest and shown once at issue.

    The app's server URL carries the token (``/api/public/v1/osmand/<token>``) and each
    request names the device (``id``); both must match (``drivers.api.ingest``).
    """

    driver = models.ForeignKey(Driver, on_delete=models.CASCADE, related_name="tracker_devices")
    device_id = models.CharField(max_length=64, unique=True)
    token_digest = models.CharField(max_length=64, unique=True, editable=False)
    created_at = models.DateTimeField(default=timezone.now)

    def __str__(self) -> str:
        return f"{self.device_id} ({self.driver_id})"
