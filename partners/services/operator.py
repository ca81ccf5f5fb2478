"""The operator's own fleet dispatch (seed section 4 rule 2)."""

from __future__ import annotations

from bookings.models import Booking, DispatchQueue
from core.callers import Caller
from core.errors import DomainError
from dispatch.services.offers import booking_assign_manual
from guards.ratelimits import limit_enforce
from partners.models import Account


def operator_intake_guide_admit(*, caller: Caller) -> None:
    """Who may read how an operator connects its bridge
    (``partners.intake_formats.partner_job.guide``): anyone, no key, as often as the
    lookups of one client may run (429 ``rate_limited`` beyond RATELIMIT_LOOKUP)."""
    limit_enforce(caller, "lookup")


def operator_job_assign(
    *, account: Account, booking: Booking, driver, vehicle=None, actor: str
) -> Booking:
    """Assign one of the operator's own drivers to one of its own jobs.

    Guarantees: only the operator's own queue and fleet are touched; the assignment is
    dispatch's manual assignment (``dispatch.services.offers.booking_assign_manual``): the
    booking row is locked, the driver and vehicle pass central dispatch's matching rules
    of the job (class, wheelchair access, seats, licences: 400 ``invalid_input`` naming
    the rule), the driver's job limit holds (409 ``driver_busy``) and an
    accepted offer row counts the job against the driver, so dispatch offers them no
    network job on top; a job that a concurrent change moved on is 409
    ``invalid_transition`` rather than silently overwritten.
    """
    if booking.account_id != account.pk or booking.dispatch_queue != DispatchQueue.OPERATOR:
        raise DomainError("booking_not_found", f"{booking.reference} is not in your queue.")
    if driver.operator_id != account.pk:
        raise DomainError(
            "invalid_input",
            "That driver is not in your fleet.",
            errors={"driver": ["Not a driver of this operator's fleet."]},
        )
    if vehicle is None:
        vehicle = driver.vehicles.filter(active=True).first()
    elif vehicle.driver_id != driver.pk:
        raise DomainError(
            "invalid_input",
            "That vehicle is not the driver's.",
            errors={"vehicle": ["Not a vehicle of this driver."]},
        )
    booking_assign_manual(
        booking_id=booking.pk,
        driver=driver,
        vehicle=vehicle,
        actor=actor,
        detail={"assignedBy": "operator"},
        matched=True,
    )
    booking.refresh_from_db()
    return booking


def operator_job_assign_chosen(
    *, account: Account, reference: str, driver_id, vehicle_id=None, actor: str
) -> Booking:
    """The dashboard's assign form: the operator's own job, one of its own drivers (and
    optionally one of that driver's vehicles) chosen by id; see operator_job_assign.

    Raises 404 ``booking_not_found`` for a job outside the operator's own queue and 400
    ``invalid_input`` when no driver of its own fleet was chosen.
    """
    booking = Booking.objects.filter(
        reference=reference, account=account, dispatch_queue=DispatchQueue.OPERATOR
    ).first()
    if booking is None:
        raise DomainError("booking_not_found", f"{reference} is not in your queue.")
    driver = account.fleet_drivers.filter(pk=_id_or_zero(driver_id)).first()
    if driver is None:
        raise DomainError(
            "invalid_input",
            "Choose one of your own drivers.",
            errors={"driver": ["Choose one of your own drivers."]},
        )
    vehicle = driver.vehicles.filter(pk=_id_or_zero(vehicle_id)).first()
    return operator_job_assign(
        account=account, booking=booking, driver=driver, vehicle=vehicle, actor=actor
    )


def _id_or_zero(value) -> int:
    """A primary key from a form value; 0 (matches nothing) for anything else."""
    try:
        return int(value)
    except (TypeError, ValueError):
        return 0
