"""What a driver does with a job they hold: status updates and settlement (contract 6)."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

from django.db import transaction
from django.db.models import Sum
from django.utils import timezone

from bookings.locks import booking_lock
from bookings.models import Booking, BookingStatus, PaymentRecord
from bookings.pickup_codes import pickup_code_require
from bookings.services import booking_status_change, payment_record_append, payment_state
from bookings.transitions import DRIVER_MOVES, SETTLEABLE, TERMINAL
from core.errors import DomainError, field_error
from core.money import gbp
from dispatch.services import waiting
from dispatch.services.offers import driver_job_release
from drivers.models import Driver
from drivers.signals import driver_became_available

MAX_SETTLEMENT = Decimal("99999.99")


def _driver_booking(*, driver: Driver, reference: str, lock: bool = False) -> Booking:
    if lock:
        booking = booking_lock(reference=reference, driver_id=driver.pk)
    else:
        booking = Booking.objects.filter(reference=reference, driver=driver).first()
    if booking is None:
        raise DomainError("job_not_found", f"No job {reference} assigned to this driver.")
    return booking


def driver_job_status_change(
    *,
    driver: Driver,
    reference: str,
    to_status: str,
    lat: float | None = None,
    lng: float | None = None,
    pickup_code: str | None = None,
) -> Booking:
    """Move the driver's job along; completed and no-show free the driver's job load.

    Guarantees: only the assigned driver can move the job (else 404 ``job_not_found``);
    illegal moves are 409 ``invalid_transition``; the load drops exactly once. The
    driver's position, when sent, is kept on the event. ``arrived`` and ``no_show`` are
    judged against the driver's own latest position report, and ``no_show`` follows the
    waiting rules (``dispatch.services.waiting``: after the free waiting, near the pickup,
    with the positions as evidence); ``on_board`` needs the passenger's pickup code
    (``bookings.pickup_codes``) and settles the final fare with any waiting charge.
    """
    if to_status not in DRIVER_MOVES:
        raise DomainError("invalid_input", f"A driver cannot set status {to_status}.")
    if to_status == BookingStatus.ON_BOARD:
        # Checked before the transaction, so that a wrong code's count outlives the
        # refusal's rollback (with the cache down it is a database row: contract 6). The
        # check inside sees the right code again, or a booking that arrived meanwhile.
        before = _driver_booking(driver=driver, reference=reference)
        if before.status == BookingStatus.ARRIVED:
            pickup_code_require(booking=before, code=pickup_code)
    with transaction.atomic():
        booking = _driver_booking(driver=driver, reference=reference, lock=True)
        if booking.status == to_status:
            return booking  # a retried update is a no-op
        now = timezone.now()
        detail = (
            {"position": {"lat": lat, "lng": lng}} if lat is not None and lng is not None else {}
        )
        changes = {}
        if to_status == BookingStatus.ARRIVED:
            detail |= waiting.arrival_require_allowed(booking, driver=driver, now=now)
        elif to_status == BookingStatus.NO_SHOW and booking.status == BookingStatus.ARRIVED:
            detail = waiting.no_show_require_allowed(
                booking, driver=driver, now=now, lat=lat, lng=lng
            )
        elif to_status == BookingStatus.ON_BOARD and booking.status == BookingStatus.ARRIVED:
            pickup_code_require(booking=booking, code=pickup_code)
            changes = waiting.final_fare_settle(booking, boarded_at=now)
            detail["finalFareGBP"] = str(changes["final_fare"])
        booking = booking_status_change(
            booking=booking,
            to_status=to_status,
            actor=f"driver:{driver.pk}",
            detail=detail or None,
            **changes,
        )
        if to_status in TERMINAL:
            driver_job_release(booking_id=booking.pk)
            # Free again: bookings nobody could take near the driver are offered again.
            transaction.on_commit(
                lambda: driver_became_available.send(sender=Driver, driver_id=driver.pk),
                robust=True,
            )
        return booking


def settlement_require_within_fare(*, booking: Booking, amount: Decimal) -> None:
    """Contract 6: settlements on one job add up to at most what the passenger owes (the
    final fare, or the booked fare before it is known), net of refunds; more is 409
    ``settlement_exceeds_fare``. The caller holds the booking row's lock."""
    totals = dict(
        PaymentRecord.objects.filter(
            booking_id=booking.pk,
            kind__in=(PaymentRecord.Kind.PAYMENT, PaymentRecord.Kind.REFUND),
        )
        .values_list("kind")
        .annotate(total=Sum("amount"))
    )
    # gbp: SQLite's SUM of a decimal column comes back as Decimal("25"), not "25.00".
    settled = gbp(
        totals.get(PaymentRecord.Kind.PAYMENT, Decimal(0))
        - totals.get(PaymentRecord.Kind.REFUND, Decimal(0))
    )
    owed = booking.fare_due
    if settled + amount > owed:
        raise DomainError(
            "settlement_exceeds_fare",
            f"Job {booking.reference}: the passenger owes GBP {owed} and GBP {settled} is "
            f"already settled; GBP {amount} more would exceed the fare.",
            extra={"fareDueGBP": float(owed), "settledGBP": float(settled)},
        )


@dataclass(frozen=True)
class Settlement:
    """A settlement recorded (or found already recorded) on a driver's job."""

    booking_reference: str
    record: PaymentRecord
    created: bool
    payment_state: str


def driver_job_settle(
    *,
    driver: Driver,
    reference: str,
    amount: Decimal,
    method: str,
    payment_reference: str = "",
    processor_fee: Decimal = Decimal("0.00"),
) -> Settlement:
    """Append a settlement to the booking's immutable payment record.

    Guarantees: only the assigned driver settles their job (else 404 ``job_not_found``),
    only once the passenger is on board or the trip is completed (else 409
    ``not_settleable``: nothing is owed before the ride, or after a cancellation or a
    no-show), for an amount more than 0 and at most 99999.99 (else 400); the settlements
    of one job add up to at most what the passenger owes (409 ``settlement_exceeds_fare``,
    :func:`settlement_require_within_fare`), and the processor fee is at most the amount
    paid (409 ``settlement_exceeds_fare``); the same payment reference is recorded once
    per booking. The booking row is locked while checking both, so concurrent settlements
    are judged one after another and an app that retries does not double the driver's
    earnings.
    """
    if not Decimal(0) < amount <= MAX_SETTLEMENT:
        raise field_error(
            "invalid_input",
            "amountGBP",
            f"Ensure this value is more than 0 and at most {MAX_SETTLEMENT}.",
        )
    if processor_fee < 0:
        raise field_error("invalid_input", "processorFeeGBP", "Ensure this value is at least 0.")
    if processor_fee > amount:
        # Contract 6: the fee is part of what was paid. Bounding it by the amount (itself
        # at most MAX_SETTLEMENT) also keeps a week's card fees inside the invoice columns.
        raise DomainError(
            "settlement_exceeds_fare",
            f"A processor fee of GBP {processor_fee} is more than the GBP {amount} paid.",
            extra={"amountGBP": float(amount), "processorFeeGBP": float(processor_fee)},
        )
    with transaction.atomic():
        booking = _driver_booking(driver=driver, reference=reference, lock=True)
        record = None
        if payment_reference:
            record = PaymentRecord.objects.filter(
                booking=booking, reference=payment_reference[:100], kind=PaymentRecord.Kind.PAYMENT
            ).first()
        created = record is None
        if created:
            if booking.status not in SETTLEABLE:
                raise DomainError(
                    "not_settleable",
                    f"Job {reference} is {booking.status}: a settlement is recorded once the "
                    "passenger is on board or the trip is completed.",
                )
            settlement_require_within_fare(booking=booking, amount=amount)
            record = payment_record_append(
                booking=booking,
                amount=amount,
                method=method,
                reference=payment_reference,
                processor_fee=processor_fee,
                driver=driver,
            )
        records = list(PaymentRecord.objects.filter(booking_id=booking.pk))
        return Settlement(
            booking_reference=booking.reference,
            record=record,
            created=created,
            payment_state=payment_state(records, booking.fare_due),
        )
