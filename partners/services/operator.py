"""The operator's own fleet dispatch (seed section 4 rule 2)."""

from __future__ import annotations

from bookings.models import Booking, BookingStatus, DispatchQueue
from bookings.services import booking_status_change
from core.errors import DomainError
from partners.models import Account


def operator_job_assign(
    *, account: Account, booking: Booking, driver, vehicle=None, actor: str
) -> Booking:
    """Assign one of the operator's own drivers to one of its own jobs.

    Guarantees: only the operator's own queue and fleet are touched; the assignment goes
    through the booking state machine (guarded UPDATE), so a job that a concurrent change
    moved on is 409 ``invalid_transition`` rather than silently overwritten.
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
    return booking_status_change(
        booking=booking,
        to_status=BookingStatus.ACCEPTED,
        actor=actor,
        detail={"driver": driver.pk, "assignedBy": "operator"},
        driver=driver,
        vehicle=vehicle,
    )
