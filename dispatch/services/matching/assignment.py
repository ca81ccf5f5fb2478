"""The rules an assignment by hand is held to: central dispatch's rules of the job,
through the same ORM conditions the trail uses."""

from __future__ import annotations

from django.db.models import Case, F, Q, Value, When
from django.db.models import CharField as CharFieldType

from dispatch.models import SkipReason
from dispatch.services.matching.requirements import JobRequirements
from dispatch.services.matching.rules import _driver_rules
from drivers.models import Vehicle

# The rules an assignment by hand is held to: every rule of the job itself (licences,
# licensing area, seats, class, wheelchair access), not where the driver is now or
# whether their app is on (an operator assigns ahead for its own fleet); the job limit
# is booking_assign_manual's own check (409 driver_busy).
ASSIGNMENT_RULES = frozenset(
    {
        SkipReason.NOT_APPROVED,
        SkipReason.LICENCE_EXPIRED,
        SkipReason.PLATE_EXPIRED,
        SkipReason.LICENSING_MISMATCH,
        SkipReason.TOO_FEW_SEATS,
        SkipReason.WRONG_CLASS,
        SkipReason.NO_WHEELCHAIR_ACCESS,
    }
)
ASSIGNMENT_REFUSAL_WORDS = {
    SkipReason.NOT_APPROVED: "the driver is not approved",
    SkipReason.LICENCE_EXPIRED: "the driver's licence has expired by the pickup date",
    SkipReason.PLATE_EXPIRED: "the vehicle's plate has expired by the pickup date",
    SkipReason.LICENSING_MISMATCH: (
        "the driver, the vehicle and the operator are not licensed by the same authority"
    ),
    SkipReason.TOO_FEW_SEATS: "the vehicle has too few seats for the party",
    SkipReason.WRONG_CLASS: "the vehicle's class does not serve the booked class",
    SkipReason.NO_WHEELCHAIR_ACCESS: "the booking needs a wheelchair-accessible vehicle",
}


def assignment_refusal(*, job: JobRequirements, vehicle_id: int) -> str:
    """The first rule of central dispatch's matcher (``_driver_rules``, the same ORM
    conditions the trail uses) that ``vehicle`` and its driver fail for ``job``, among
    ``ASSIGNMENT_RULES``; empty when central dispatch could offer it to them."""
    rules = [
        When(fails, then=Value(str(code)))
        for code, fails in _driver_rules(job=job, seen_fails=Q(pk__isnull=True))
        if code in ASSIGNMENT_RULES
    ]
    reason = (
        Vehicle.objects.filter(pk=vehicle_id)
        .annotate(
            operator_authority=F("driver__approved_by__operator_licence__licensing_authority"),
            refusal=Case(*rules, default=Value(""), output_field=CharFieldType()),
        )
        .values_list("refusal", flat=True)
        .first()
    )
    return reason or ""
