"""Personal data (contract 11, issue 39): holds that stop the retention job, the data
requests of passengers and drivers, and the record of which staff looked at whose data."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils import timezone


class HoldReason(models.TextChoices):
    DISPUTE = "dispute", "An open payment dispute"
    NO_SHOW_CLAIM = "no_show_claim", "A no-show claim"
    COMPLAINT = "complaint", "A complaint"
    AUTHORITY_REQUEST = "authority_request", "A request from a licensing authority"
    POLICE_REQUEST = "police_request", "A request from the police"


class Hold(models.Model):
    """Keeps a booking's records (its passenger's details, its driver's trail) past their
    period while it is open. Released, it no longer keeps anything; it is never deleted
    while open."""

    booking = models.ForeignKey(
        "bookings.Booking", on_delete=models.CASCADE, related_name="privacy_holds"
    )
    reason = models.CharField(max_length=20, choices=HoldReason.choices)
    note = models.CharField(max_length=500, blank=True)
    placed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    placed_at = models.DateTimeField(default=timezone.now)
    released_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-placed_at"]
        indexes = [models.Index(fields=["booking", "released_at"], name="privacy_hold_open")]

    def __str__(self) -> str:
        return f"{self.get_reason_display()} on booking {self.booking_id}"


class DataRequestKind(models.TextChoices):
    ACCESS = "access", "A copy of my data"
    ERASURE = "erasure", "Erase my data"


class DataRequestSubject(models.TextChoices):
    PASSENGER = "passenger", "Passenger (by email)"
    DRIVER = "driver", "Driver"


class DataRequest(models.Model):
    """A request under UK GDPR (access, erasure): answered within a month of receipt.

    A passenger's request names an email and counts from when the emailed link confirms
    it; a driver's comes from the signed-in driver app and counts from its receipt.
    Only the token's hash is stored."""

    kind = models.CharField(max_length=10, choices=DataRequestKind.choices)
    subject = models.CharField(
        max_length=10, choices=DataRequestSubject.choices, default=DataRequestSubject.PASSENGER
    )
    email = models.EmailField(blank=True)
    driver = models.ForeignKey(
        "drivers.Driver", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    token_hash = models.CharField(max_length=64, unique=True)
    created_at = models.DateTimeField(default=timezone.now, db_index=True)
    confirmed_at = models.DateTimeField(null=True, blank=True)
    completed_at = models.DateTimeField(null=True, blank=True)
    outcome = models.JSONField(
        default=dict, blank=True, help_text="What was erased, and what is kept, why and until when."
    )

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        who = self.email or f"driver {self.driver_id}"
        return f"{self.get_kind_display()} for {who}"


class StaffView(models.Model):
    """One look by a staff member at a booking, a passenger or a driver in the back office:
    who, what, when. Written by privacy.audit, read in the admin, never edited."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+"
    )
    username = models.CharField(max_length=150)
    model = models.CharField(max_length=60, help_text="app_label.model")
    object_id = models.CharField(max_length=64, blank=True)
    search = models.CharField(max_length=200, blank=True)
    path = models.CharField(max_length=300)
    at = models.DateTimeField(default=timezone.now, db_index=True)

    class Meta:
        ordering = ["-at", "-id"]
        indexes = [models.Index(fields=["model", "object_id"], name="privacy_staffview_object")]

    def __str__(self) -> str:
        target = self.object_id or f"search {self.search!r}"
        return f"{self.username} viewed {self.model} {target} at {self.at:%Y-%m-%d %H:%M}"
