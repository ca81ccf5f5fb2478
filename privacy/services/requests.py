"""A passenger's and a driver's rights over their data, self-served (contract 11).

A passenger names an email and the kind of request; a link goes to that address, and the
request counts once the link is opened and confirmed. The answer to the first step is
the same whether or not the address has bookings. A confirmed access request gives the
data as JSON and as a page; a confirmed erasure request is applied at once where no hold
or statutory period stops it, and the outcome says what is kept, why and until when.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import secrets
from dataclasses import dataclass

from django.conf import settings
from django.core.mail import send_mail
from django.db import transaction
from django.db.models import Q
from django.urls import reverse
from django.utils import timezone

from agents.models import SignInCode
from bookings.models import Booking, EmailConfirmation, Passenger, PaymentRecord
from bookings.selectors import driver_public_name
from core.errors import DomainError
from core.localtime import local_time_format
from core.mail import privacy_line
from drivers.models import Driver
from guards.email_keys import email_key_domains, email_limit_key
from pricing.submissions.sending import submissions_of
from privacy.models import DataRequest, DataRequestKind, DataRequestSubject, Hold
from privacy.schedule import booking_kept_until, request_deadline
from privacy.services.retention import _district_code, contact_remove


def _hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def privacy_notice_url() -> str:
    return settings.SITE_URL + reverse("privacy-notice")


def data_request_start(*, kind: str, email: str, now: dt.datetime | None = None) -> None:
    """Email ``email`` a link that confirms a request of ``kind``. Says nothing back about
    the address; more than PRIVACY_REQUESTS_PER_EMAIL_PER_DAY links a day to one address
    are not sent (the answer is the same)."""
    now = now or timezone.now()
    email = email.strip().lower()
    if kind not in DataRequestKind.values:
        raise DomainError("invalid_input", "Choose a copy of your data or erasure.")
    if _requests_today(email, now=now) >= settings.PRIVACY_REQUESTS_PER_EMAIL_PER_DAY:
        return
    token = secrets.token_urlsafe(32)
    request = DataRequest.objects.create(
        kind=kind, email=email, token_hash=_hash(token), created_at=now
    )
    link = settings.SITE_URL + reverse("privacy-request", args=[token])
    what = "a copy of your data" if kind == DataRequestKind.ACCESS else "erasure of your data"
    lines = [
        f"Someone, we hope you, asked for {what} held under this email address.",
        f"To confirm, open this link within {settings.PRIVACY_REQUEST_LINK_HOURS} hours: {link}",
        "If it was not you, ignore this email: nothing happens without the link.",
        privacy_line(),
    ]
    transaction.on_commit(
        lambda: send_mail(
            "Your data request", "\n".join(lines), None, [request.email], fail_silently=True
        )
    )


def _requests_today(email: str, *, now: dt.datetime) -> int:
    """Requests in the last day for the mailbox ``email`` names, however each was spelt
    (``guards.email_keys``: case, ``+tags``, Gmail's dots)."""
    key = email_limit_key(email)
    domains = Q()
    for domain in email_key_domains(key):
        domains |= Q(email__iendswith=f"@{domain}")
    recent = DataRequest.objects.filter(domains, created_at__gte=now - dt.timedelta(days=1))
    return sum(
        1 for typed in recent.values_list("email", flat=True) if email_limit_key(typed) == key
    )


def data_request_for_token(token: str, *, now: dt.datetime | None = None) -> DataRequest:
    now = now or timezone.now()
    request = DataRequest.objects.filter(token_hash=_hash(token)).first()
    if request is None or request.subject != DataRequestSubject.PASSENGER:
        raise DomainError("not_found", "That link is not valid.")
    if request.created_at < now - dt.timedelta(hours=settings.PRIVACY_REQUEST_LINK_HOURS):
        raise DomainError("link_expired", "That link has expired; ask again from the privacy page.")
    return request


def data_request_confirm(token: str, *, now: dt.datetime | None = None) -> DataRequest:
    """Confirm the request behind ``token`` and carry it out; a second confirmation
    returns the first outcome."""
    now = now or timezone.now()
    request = data_request_for_token(token, now=now)
    with transaction.atomic():
        request = DataRequest.objects.select_for_update().get(pk=request.pk)
        if request.completed_at:
            return request
        request.confirmed_at = now
        if request.kind == DataRequestKind.ERASURE:
            request.outcome = passenger_erase(request.email, now=now)
        else:
            request.outcome = {
                "bookings": Booking.objects.filter(passenger_email__iexact=request.email).count()
            }
        request.completed_at = now
        request.save(update_fields=["confirmed_at", "outcome", "completed_at"])
    return request


def _booking_data(booking: Booking) -> dict:
    return {
        "reference": booking.reference,
        "status": booking.status,
        "createdAt": booking.created_at.isoformat(),
        "pickupTime": booking.pickup_time.isoformat(),
        "pickup": booking.pickup,
        "dropoff": booking.dropoff,
        "passengers": booking.passengers,
        "vehicleType": booking.vehicle_type,
        "passengerName": booking.passenger_name,
        "passengerEmail": booking.passenger_email,
        "passengerPhone": booking.passenger_phone,
        "notes": booking.notes,
        "flightNumber": booking.flight_number,
        "fareGBP": str(booking.fare),
        "paymentMethod": booking.payment_method,
        "driver": driver_public_name(booking.driver.name) if booking.driver_id else None,
        "payments": [
            {"kind": r.kind, "amountGBP": str(r.amount), "occurredAt": r.occurred_at.isoformat()}
            for r in PaymentRecord.objects.filter(booking=booking).order_by("occurred_at")
        ],
        "supportRequests": [
            {
                "type": r.support_type,
                "comment": r.comment,
                "status": r.status,
                "reply": r.reply,
                "createdAt": r.created_at.isoformat(),
            }
            for r in booking.support_requests.order_by("created_at")
        ],
    }


def passenger_data(email: str) -> dict:
    """Everything held under ``email``: the passenger record and the bookings naming it."""
    passenger = Passenger.objects.filter(email__iexact=email).first()
    bookings = (
        Booking.objects.filter(passenger_email__iexact=email)
        .select_related("driver")
        .order_by("-pickup_time")
    )
    return {
        "email": email,
        "generatedAt": timezone.now().isoformat(),
        "passenger": None
        if passenger is None
        else {
            "email": passenger.email,
            "name": passenger.name,
            "phone": passenger.phone,
            "emailVerifiedAt": passenger.email_verified_at.isoformat()
            if passenger.email_verified_at
            else None,
            "blocked": passenger.blocked,
            "createdAt": passenger.created_at.isoformat(),
        },
        "bookings": [_booking_data(booking) for booking in bookings],
        "requests": [
            {"kind": r.kind, "createdAt": r.created_at.isoformat(), "outcome": r.outcome}
            for r in DataRequest.objects.filter(email__iexact=email).order_by("created_at")
        ],
        "privacyNotice": privacy_notice_url(),
    }


@dataclass(frozen=True)
class Kept:
    what: str
    why: str
    until: dt.datetime | None

    def as_dict(self) -> dict:
        return {
            "what": self.what,
            "why": self.why,
            "until": self.until.isoformat() if self.until else None,
            "untilText": local_time_format(self.until) if self.until else "while it lasts",
        }


def passenger_erase(email: str, *, now: dt.datetime) -> dict:
    """Erase what no hold or statutory period keeps; say what is kept, why, until when."""
    erased: list[str] = []
    kept: list[Kept] = []
    holds = dict(
        Hold.objects.filter(
            booking__passenger_email__iexact=email, released_at__isnull=True
        ).values_list("booking_id", "reason")
    )
    for booking in Booking.objects.filter(passenger_email__iexact=email).order_by("pickup_time"):
        until = booking_kept_until(
            booking.pickup_time, _district_code(booking.pickup_lat, booking.pickup_lng)
        )
        if booking.pk in holds:
            label = Hold(reason=holds[booking.pk]).get_reason_display()
            kept.append(Kept(f"Booking {booking.reference}", f"{label} is open.", None))
        elif until > now:
            kept.append(
                Kept(
                    f"Booking {booking.reference}",
                    "The licensing authority of the pickup requires the operator to keep its "
                    "booking record, your name included, for this long.",
                    until,
                )
            )
        else:
            contact_remove([booking.pk], now=now)
            erased.append(f"Your details on booking {booking.reference}")
    passenger = Passenger.objects.filter(email__iexact=email).first()
    if passenger is not None:
        if passenger.blocked:
            kept.append(
                Kept(
                    "Your email address on our block list",
                    "It was blocked from booking; the block is kept while it applies.",
                    None,
                )
            )
        elif any(item.what.startswith("Booking") for item in kept):
            kept.append(
                Kept(
                    "Your passenger record",
                    "Kept with the bookings above, and erased with the last of them.",
                    max((item.until for item in kept if item.until), default=None),
                )
            )
        else:
            EmailConfirmation.objects.filter(passenger=passenger).delete()
            passenger.delete()
            erased.append("Your passenger record")
    SignInCode.objects.filter(email__iexact=email).delete()
    return {"erased": erased, "kept": [item.as_dict() for item in kept]}


def driver_data(driver: Driver) -> dict:
    """What a driver can download from the driver app: their record, vehicles, jobs, the
    fare tables they sent in."""
    jobs = Booking.objects.filter(driver=driver).order_by("-pickup_time")
    return {
        "driver": {
            "name": driver.name,
            "phone": driver.phone,
            "email": driver.email,
            "licenceNumber": driver.licence_number,
            "licenceExpiry": driver.licence_expiry.isoformat(),
            "createdAt": driver.created_at.isoformat(),
        },
        "vehicles": [
            {"registration": v.registration, "make": v.make, "model": v.model}
            for v in driver.vehicles.all()
        ],
        "jobs": [
            {
                "reference": job.reference,
                "pickupTime": job.pickup_time.isoformat(),
                "pickup": job.pickup,
                "dropoff": job.dropoff,
                "status": job.status,
                "fareGBP": str(job.fare),
            }
            for job in jobs
        ],
        "positionSamples": driver.position_samples.count(),
        # Fare tables the driver sent in (pricing.submissions); their photos are shown to
        # staff only, so the download says they are kept rather than carrying them.
        "fareTablesSent": [
            {
                "authority": table.authority,
                "effectiveFrom": table.effective_from.isoformat(),
                "sentAt": table.created_at.isoformat(),
                "status": table.status,
                "rejectionReason": table.rejection_reason,
                "photoKept": bool(table.photo),
            }
            for table in submissions_of(driver.user)
        ]
        if driver.user_id
        else [],
        "privacyNotice": privacy_notice_url(),
    }


def driver_request_record(
    *, driver: Driver, kind: str, now: dt.datetime | None = None
) -> DataRequest:
    """A driver's request from the signed-in app: recorded for staff, who answer it
    within the month, within what the driver's licence and invoices require."""
    now = now or timezone.now()
    if kind not in DataRequestKind.values:
        raise DomainError("invalid_input", "Choose a copy of your data or erasure.")
    return DataRequest.objects.create(
        kind=kind,
        subject=DataRequestSubject.DRIVER,
        driver=driver,
        token_hash=_hash(secrets.token_urlsafe(32)),
        created_at=now,
        confirmed_at=now,
    )


def deadline_of(request: DataRequest) -> dt.datetime:
    return request_deadline(request.confirmed_at or request.created_at)
