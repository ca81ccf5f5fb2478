"""The one typed intake request, and its outcome: the seam every intake format meets.

A format module (``partners/intake_formats/``) turns a sender's payload into
:class:`IntakeJob` objects, each carrying the :class:`bookings.admission.BookingRequest`
that admission takes, and renders :class:`JobResult` objects back in the sender's own
shape. The batch service (``partners.services.batches``) and the apply step
(``partners.services.intake``) never see a format.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from django.db import models

from bookings.admission import BookingRequest
from core.errors import DomainError

MAX_BATCH = 100  # seed section 8: up to 100 jobs per batch


class JobAction(models.TextChoices):
    NEW = "new"
    AMEND = "amend"
    CANCEL = "cancel"


class JobOutcome(models.TextChoices):
    CREATED = "created"
    AMENDED = "amended"
    CANCELLED = "cancelled"
    UNCHANGED = "unchanged"
    REJECTED = "rejected"


ACCEPTED_OUTCOMES = frozenset(
    {JobOutcome.CREATED, JobOutcome.AMENDED, JobOutcome.CANCELLED, JobOutcome.UNCHANGED}
)

# The booking engine's name of each job field -> how it is read off the typed request.
_REQUEST_FIELDS = {
    "pickup": lambda r: r.pickup,
    "dropoff": lambda r: r.dropoff,
    "pickup_time": lambda r: r.depart_at,
    "passenger_name": lambda r: r.passenger.name,
    "passenger_email": lambda r: r.passenger.email,
    "passenger_phone": lambda r: r.passenger.phone,
    "passengers": lambda r: r.passengers,
    "vehicle_type": lambda r: r.vehicle_type,
    "flight_number": lambda r: r.flight_number,
    "fare": lambda r: r.fare,
    "notes": lambda r: r.notes,
}
JOB_FIELDS = frozenset(_REQUEST_FIELDS)


@dataclass(frozen=True)
class IntakeJob:
    """One pushed job, typed: the sender's reference, what to do, and the booking request.

    ``sent`` names (in the booking engine's names, ``JOB_FIELDS``) the fields the sender
    actually gave: an ``amend`` changes exactly those, and a blank optional text among
    them means "clear it".
    """

    index: int
    job_ref: str
    action: str
    request: BookingRequest = field(default_factory=BookingRequest)
    sent: frozenset[str] = frozenset()

    def __post_init__(self) -> None:
        unknown = self.sent - JOB_FIELDS
        if unknown:
            raise ValueError(f"Not intake job fields: {sorted(unknown)}")

    @property
    def fields(self) -> dict[str, Any]:
        """The fields sent, by engine name, read off the typed request."""
        return {
            name: read(self.request) for name, read in _REQUEST_FIELDS.items() if name in self.sent
        }

    def with_request(self, request: BookingRequest) -> IntakeJob:
        return replace(self, request=request)


@dataclass
class JobResult:
    """One entry of the per-job outcome list (contract 4.1)."""

    index: int
    job_ref: str | None
    outcome: str
    booking_reference: str | None = None
    errors: dict[str, list[str]] | None = None
    code: str | None = None
    # What the passenger tells the driver to start the trip (bookings.pickup_codes); None
    # when the sender opted out.
    pickup_code: str | None = None

    @classmethod
    def from_error(cls, *, index: int, job_ref: str | None, error: DomainError) -> JobResult:
        return cls.rejected(
            index=index,
            job_ref=job_ref,
            code=error.code,
            errors=error.errors or {"non_field_errors": [error.detail or error.code]},
        )

    @classmethod
    def rejected(
        cls, *, index: int, job_ref: str | None, code: str, errors: dict[str, list[str]]
    ) -> JobResult:
        return cls(
            index=index, job_ref=job_ref, outcome=JobOutcome.REJECTED, code=code, errors=errors
        )

    @property
    def accepted(self) -> bool:
        return self.outcome in ACCEPTED_OUTCOMES


@dataclass(frozen=True)
class IntakeBatch:
    """A sender's body read by its format: the jobs it could read, in request order, the
    ones it could not (rejected results), and whether the body was a single job."""

    jobs: list[IntakeJob]
    rejected: list[JobResult] = field(default_factory=list)
    single: bool = False


def text_echo(value: Any) -> str | None:
    """A sender's string as it can be echoed back: lone surrogates (valid JSON escapes,
    but not text) become U+FFFD instead of failing the response."""
    if not isinstance(value, str):
        return None
    return value.encode("utf-8", "surrogatepass").decode("utf-8", "replace")
