"""Suntransfers ST SPEC v1: this service as a Suntransfers supplier.

In ST SPEC v1 (github.com/suntransfers/supplier-integration, ``docs/v1/st-spec-v1.json``,
OpenAPI 3.0.4, read 2026-11-25) the supplier hosts the API and the marketplace pushes:
``POST /v1/bookings`` for a new booking, ``PUT /v1/bookings/{bookingReference}`` to
create or amend one, ``DELETE`` to cancel it; ``GET`` of the booking and of its driver
events, and ``POST /v1/quotes``, are optional capabilities. Authentication is HTTP Basic.
The door is ``partners.api.suntransfers``; this module is the format:

- A booking has one or two transfers (legs). Leg ``n`` of booking ``SUNTR_AB1234`` is the
  PartnerJob ``SUNTR_AB1234/n`` (that is also the ``supplierReference`` we answer with),
  so a retried or repeated push is idempotent on the intake's (account, jobRef)
  constraint, whatever the marketplace sends again.
- Each leg becomes one PartnerJob (the one intake request) and goes through
  ``partners.services.batches`` like any pushed job: validated, admitted
  (``bookings.admission``), priced at the marketplace's ``price.totalRate`` (the sender
  prices, ``Account.may_set_fare``), dispatched.
- A create is all or nothing: when a leg is refused, the legs this request created are
  cancelled again and the marketplace is told 400 (it retries or escalates).

The payload is checked against the request bodies below before anything else, so a body
the spec does not allow is 400 whatever it holds.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from django.utils import timezone
from jsonschema import Draft4Validator, FormatChecker

from bookings import events
from bookings.actions import quote_request
from bookings.models import BookingEvent, BookingStatus
from bookings.passengers import phone_to_e164
from core.callers import Caller
from core.errors import DomainError
from core.localtime import local_zone
from partners.models import Account, IntakeFormat
from partners.services.batches import (
    IntakeReceipt,
    intake_jobs_apply,
    intake_jobs_validate,
    intake_sender_admit,
)
from partners.services.intake import JobAction, JobOutcome, JobResult, intake_existing_bookings

SENDER_KIND = Account.Kind.SUPPLIER
MAX_LEGS = 2
NOTES_MAX = 2000

# --- the request bodies, as the spec states them ----------------------------------------


def _nullable(schema: dict) -> dict:
    nullable = dict(schema)
    if "enum" in nullable:
        nullable["enum"] = [*nullable["enum"], None]
    nullable["type"] = [schema["type"], "null"]
    return nullable


def _string(min_length: int = 1, max_length: int | None = None, **extra) -> dict:
    schema = {"type": "string", "minLength": min_length, **extra}
    if max_length is not None:
        schema["maxLength"] = max_length
    return schema


def _integer(minimum: int, maximum: int) -> dict:
    return {"type": "integer", "minimum": minimum, "maximum": maximum}


def _object(properties: dict, required: tuple[str, ...] = ()) -> dict:
    return {
        "type": "object",
        "properties": properties,
        "required": list(required),
        "additionalProperties": False,
    }


def _strings() -> dict:
    return {"type": "array", "items": {"type": "string"}}


NUMBER = {"type": "number"}
BOOLEAN = {"type": "boolean"}
DATE_TIME_LOCAL = _string(19, 33, format="date-time")
BOOKING_REFERENCE = _string(1, 32)

LEAD_PASSENGER = _object(
    {
        "firstName": _string(1, 100),
        "lastName": _string(1, 100),
        "email": _string(5, format="email"),
        "phoneNumber": _string(1, 25),
    },
    ("firstName", "lastName", "email", "phoneNumber"),
)
AGENCY = _nullable(
    _object({"name": _string(1, 100), "bookingReference": _nullable(_string(1, 100))}, ("name",))
)
LOCATION = _object(
    {
        "name": _string(1, 100),
        "translatedName": _string(1, 100),
        "type": {"type": "string", "enum": ["Gateway", "Resort"]},
        "id": _string(1, 10),
        "countryCode": _string(2, 2),
        "gatewayCode": _nullable(_string(1, 10)),
        "latitude": {"type": "number", "minimum": -90, "maximum": 90},
        "longitude": {"type": "number", "minimum": -180, "maximum": 180},
    },
    ("name", "translatedName", "type", "id", "countryCode", "latitude", "longitude"),
)
VEHICLE = _object(
    {
        "code": _string(1, 30),
        "type": _string(1, 100),
        "title": _string(1, 100),
        "isShared": BOOLEAN,
        "isWheelchairAccessible": BOOLEAN,
        "maxPassengers": _nullable(_integer(1, 100)),
    },
    ("code", "type", "title", "isShared", "isWheelchairAccessible"),
)
PASSENGERS = _object(
    {
        "total": _integer(1, 100),
        "adults": _integer(0, 100),
        "children": _integer(0, 100),
        "infants": _integer(0, 100),
        "ages": _nullable({"type": "array", "items": _integer(0, 16)}),
    },
    ("adults", "children", "infants", "total"),
)
ACCOMMODATION = _nullable(
    _object(
        {
            "type": _nullable(
                {"type": "string", "enum": ["Hotel", "Villa", "Apartment", "Campsite", "Other"]}
            ),
            "name": _nullable(_string(1, 250)),
            "addressParts": _nullable(_strings()),
            "phone": _nullable(_string(1, 250)),
            "giataCode": _nullable(_string(1, 10)),
            "pickupName": _nullable(_string(1, 250)),
            "pickupAddressParts": _nullable(_strings()),
        }
    )
)
FLIGHT = _nullable(
    _object(
        {
            "airline": _nullable(_string(1, 100)),
            "flightNumber": _nullable(_string(1, 20)),
            "flightNumberAirline": _nullable(_string(1, 10)),
            "flightNumberDigits": _nullable(_string(1, 10)),
            "originGateway": _nullable(_string(1, 50)),
            "flightDateTime": _nullable(DATE_TIME_LOCAL),
        }
    )
)
EXTRA = _object(
    {
        "id": _string(1, 10),
        "name": _string(1, 250),
        "translatedName": _string(1, 250),
        "quantity": _integer(0, 100),
        "unitRate": NUMBER,
        "notes": _nullable(_string(1, 1000)),
    },
    ("id", "name", "quantity", "translatedName", "unitRate"),
)
PRICE = _object(
    {
        "baseRate": NUMBER,
        "extras": _nullable(NUMBER),
        "nightSupplement": _nullable(NUMBER),
        "weekdaySupplement": _nullable(NUMBER),
        "totalRate": NUMBER,
    },
    ("baseRate", "totalRate"),
)
TRANSFER = _object(
    {
        "status": {"type": "string", "enum": ["Created", "Modified", "Cancelled"]},
        "origin": LOCATION,
        "destination": LOCATION,
        "vehicle": VEHICLE,
        "passengers": PASSENGERS,
        "accommodation": ACCOMMODATION,
        "transferDateTime": DATE_TIME_LOCAL,
        "pickupDateTime": _nullable(DATE_TIME_LOCAL),
        "latestPickupDateTime": _nullable(DATE_TIME_LOCAL),
        "fromFlight": FLIGHT,
        "toFlight": FLIGHT,
        "extras": _nullable({"type": "array", "items": EXTRA}),
        "price": PRICE,
        "hasCheckedLuggage": _nullable(BOOLEAN),
        "isVisaRequired": _nullable(BOOLEAN),
        "quoteId": _nullable({"type": "string"}),
    },
    ("status", "origin", "destination", "vehicle", "passengers", "transferDateTime", "price"),
)
TRANSFERS = {"type": "array", "items": TRANSFER}
MODIFICATION_TYPES = [
    "Amendment",
    "TransferDeclined",
    "TransferNotProvided",
    "ExtraNotProvided",
    "LateCollection",
    "DriverNoShow",
]

CREATE_BOOKING = _object(
    {
        "bookingReference": BOOKING_REFERENCE,
        "leadPassenger": LEAD_PASSENGER,
        "agency": AGENCY,
        "transfers": TRANSFERS,
    },
    ("bookingReference", "leadPassenger", "transfers"),
)
AMEND_BOOKING = _object(
    {
        "leadPassenger": LEAD_PASSENGER,
        "agency": AGENCY,
        "transfers": TRANSFERS,
        "modificationType": {"type": "string", "enum": MODIFICATION_TYPES},
    },
    ("leadPassenger", "transfers", "modificationType"),
)
CANCEL_BOOKING = _object(
    {
        "cancellationAuthor": {"type": "string", "enum": ["Customer", "Supplier", "Suntransfers"]},
        "leadPassenger": LEAD_PASSENGER,
        "agency": AGENCY,
        "transfers": TRANSFERS,
        "notes": _nullable(_string(1, 500)),
    },
    ("cancellationAuthor", "leadPassenger", "transfers"),
)
DETAILED_LOCATION = _object(
    {
        "name": _nullable(_string(1, 100)),
        "translatedName": _nullable(_string(1, 100)),
        "type": {"type": "string", "enum": ["Gateway", "Resort"]},
        "id": _nullable(_string(1, 10)),
        "countryCode": _string(2, 2),
        "gatewayCode": _nullable(_string(1, 10)),
        "latitude": {"type": "number", "minimum": -90, "maximum": 90},
        "longitude": {"type": "number", "minimum": -180, "maximum": 180},
        "addressParts": _nullable(_strings()),
    },
    ("type", "countryCode", "latitude", "longitude"),
)
# A quoted extra is an extra ordered at least once.
QUOTE_EXTRA = _object(
    {**EXTRA["properties"], "quantity": _integer(1, 100)}, tuple(EXTRA["required"])
)
QUOTE_REQUEST = _object(
    {
        "transfers": {
            "type": "array",
            "items": _object(
                {
                    "origin": DETAILED_LOCATION,
                    "destination": DETAILED_LOCATION,
                    "vehicle": VEHICLE,
                    "passengers": PASSENGERS,
                    "transferDateTime": DATE_TIME_LOCAL,
                    "extras": _nullable({"type": "array", "items": QUOTE_EXTRA}),
                },
                ("origin", "destination", "vehicle", "passengers", "transferDateTime"),
            ),
        }
    },
    ("transfers",),
)
EVENTS_QUERY = _object(
    {
        "leg": _integer(1, MAX_LEGS),
        "sort": {"type": "string", "enum": ["Asc", "Desc"]},
        "startingAt": DATE_TIME_LOCAL,
        "endingAt": DATE_TIME_LOCAL,
    },
    ("leg", "sort"),
)

# RFC 3339 date-time (the spec's ``format: date-time``); the local offset may be omitted,
# as ``DateTimeLocal`` allows (19 characters at least).
_DATE_TIME = re.compile(
    r"\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:[Zz]|[+-]\d{2}:\d{2})?"
)
_formats = FormatChecker(formats=("email",))


@_formats.checks("date-time", raises=ValueError)
def _is_date_time(value: object) -> bool:
    if not isinstance(value, str):
        return True
    if not _DATE_TIME.fullmatch(value):
        return False
    moment = dt.datetime.fromisoformat(value.upper().replace("Z", "+00:00"))
    aware = moment if moment.tzinfo else moment.replace(tzinfo=local_zone())
    try:  # a time at the ends of the calendar may not exist in UTC or in local time
        aware.astimezone(dt.UTC).astimezone(local_zone())
    except (OverflowError, ValueError):
        return False
    return True


def st_payload_check(payload: Any, schema: dict) -> dict:
    """The payload when the spec allows it; 400 ``invalid_input`` naming the first field
    that it does not allow."""
    errors = sorted(
        Draft4Validator(schema, format_checker=_formats).iter_errors(payload),
        key=lambda e: list(e.absolute_path),
    )
    if not errors:
        return payload
    first = errors[0]
    field = ".".join(str(part) for part in first.absolute_path) or "body"
    message = first.message if len(first.message) <= 300 else first.message[:297] + "..."
    raise DomainError("invalid_input", f"Field '{field}': {message}", errors={field: [message]})


# --- a leg as a PartnerJob ----------------------------------------------------------------


def st_job_ref(reference: str, leg: int) -> str:
    return f"{reference}/{leg}"


def _moment(text: str) -> dt.datetime:
    """A spec date-time, aware; a time without an offset is the local time of the
    journey, which for this service is UK local time."""
    moment = dt.datetime.fromisoformat(text.upper().replace("Z", "+00:00"))
    if timezone.is_naive(moment):
        moment = moment.replace(tzinfo=local_zone())
    return moment


def _local_time(text: str) -> str:
    """A spec date-time as the PartnerJob's ISO time."""
    return _moment(text).isoformat()


def _place(location: dict, accommodation: dict | None, *, pickup: bool) -> str:
    """Where the geocoder should look: a gateway's code (an IATA code for an airport), or
    the accommodation's address on the resort side, else the location's English name."""
    if location["type"] == "Gateway" and location.get("gatewayCode"):
        return location["gatewayCode"]
    if accommodation:
        parts = (pickup and accommodation.get("pickupAddressParts")) or accommodation.get(
            "addressParts"
        )
        if parts:
            return ", ".join([accommodation.get("name") or "", *parts]).strip(", ")[:300]
    return location["name"]


def _quoted_place(location: dict) -> str:
    """A quote's place: the gateway's code, the resort's address, else its name."""
    if location["type"] == "Gateway" and location.get("gatewayCode"):
        return location["gatewayCode"]
    if location.get("addressParts"):
        return ", ".join(location["addressParts"])[:300]
    return location.get("name") or location.get("translatedName") or ""


def _notes(transfer: dict, lead: dict, phone: str | None) -> str:
    lines = []
    accommodation = transfer.get("accommodation") or {}
    if accommodation.get("pickupName"):
        lines.append(f"Pickup point: {accommodation['pickupName']}")
    if accommodation.get("name"):
        lines.append(f"Accommodation: {accommodation['name']}")
    for extra in transfer.get("extras") or []:
        lines.append(f"Extra: {extra['quantity']} x {extra['name']}")
    if transfer.get("hasCheckedLuggage"):
        lines.append("Checked luggage.")
    if phone is None:
        lines.append(f"Phone as sent: {lead['phoneNumber']}")
    return "\n".join(lines)[:NOTES_MAX]


def _fare(price: dict) -> str:
    # str() first: the JSON number as written, not the binary float (34.4, not 34.39999...).
    return str(Decimal(str(price["totalRate"])))


def st_leg_job(
    *, reference: str, leg: int, transfer: dict, lead: dict, action: str
) -> dict[str, Any]:
    """One transfer as the PartnerJob the intake receives."""
    accommodation = transfer.get("accommodation")
    origin, destination = transfer["origin"], transfer["destination"]
    # The accommodation is the resort side's address: the pickup's when the origin is one.
    origin_stay = accommodation if origin["type"] == "Resort" else None
    destination_stay = accommodation if origin_stay is None else None
    phone = phone_to_e164(lead["phoneNumber"])
    job: dict[str, Any] = {
        "jobRef": st_job_ref(reference, leg),
        "action": action,
        "pickup": _place(origin, origin_stay, pickup=True),
        "dropoff": _place(destination, destination_stay, pickup=False),
        "pickupTime": _local_time(transfer.get("pickupDateTime") or transfer["transferDateTime"]),
        "passengerName": f"{lead['firstName']} {lead['lastName']}".strip()[:200],
        "passengerEmail": lead["email"],
        "passengers": transfer["passengers"]["total"],
        "fare": _fare(transfer["price"]),
        "notes": _notes(transfer, lead, phone),
    }
    if phone is not None:
        job["passengerPhone"] = phone
    flight = (transfer.get("fromFlight") or {}).get("flightNumber")
    if flight and origin["type"] == "Gateway":
        job["flightNumber"] = flight
    if transfer["vehicle"]["isWheelchairAccessible"]:
        job["vehicleType"] = "wav"
    return job


# --- the use cases --------------------------------------------------------------------------


@dataclass(frozen=True)
class StOutcome:
    """What the marketplace is answered: the booking and our references of its legs;
    ``created`` when this request created a leg (PUT answers 201 then, else 200)."""

    booking_reference: str
    supplier_references: list[str]
    created: bool = False


def _refused(results: list[JobResult]) -> DomainError:
    refused = [r for r in results if not r.accepted]
    first = refused[0]
    errors = {
        f"{r.job_ref or r.index}.{name}": messages
        for r in refused
        for name, messages in (r.errors or {}).items()
    }
    detail = "; ".join(
        f"transfer {r.index + 1}: " + " ".join(m for ms in (r.errors or {}).values() for m in ms)
        for r in refused
    )
    return DomainError(first.code or "invalid_input", detail[:2000], errors=errors)


def _legs(transfers: list[dict]) -> list[tuple[int, dict]]:
    if not transfers or len(transfers) > MAX_LEGS:
        raise DomainError(
            "invalid_input",
            f"Field 'transfers': a booking has 1 to {MAX_LEGS} transfers.",
            errors={"transfers": [f"Send 1 to {MAX_LEGS} transfers."]},
        )
    return list(enumerate(transfers, start=1))


def _receive(caller: Caller, raw_jobs: list[dict]) -> IntakeReceipt:
    """All or nothing: no leg is applied unless every leg passes validation and
    admission; a leg refused while applying cancels the legs this request created."""
    jobs, rejected = intake_jobs_validate(caller=caller, raw_jobs=raw_jobs)
    if rejected:
        raise _refused(rejected)
    receipt = intake_jobs_apply(caller=caller, jobs=jobs)
    if receipt.any_rejected:
        created = [r.job_ref for r in receipt.results if r.outcome == JobOutcome.CREATED]
        if created:
            undo = [
                {"jobRef": ref, "action": JobAction.CANCEL, "notes": "Another leg was refused."}
                for ref in created
            ]
            valid, _ = intake_jobs_validate(caller=caller, raw_jobs=undo)
            intake_jobs_apply(caller=caller, jobs=valid)
        raise _refused(receipt.results)
    return receipt


def st_booking_create(*, caller: Caller, payload: Any) -> StOutcome:
    """POST /v1/bookings: every leg of a new booking, as new jobs.

    Guarantees: one booking per leg however often the marketplace sends it (a repeat is
    answered as the first time); all legs or none.
    """
    intake_sender_admit(
        caller=caller, sender_kind=SENDER_KIND, intake_format=IntakeFormat.ST_SPEC_V1
    )
    body = st_payload_check(payload, CREATE_BOOKING)
    reference = body["bookingReference"]
    legs = _legs(body["transfers"])
    raw = [
        st_leg_job(
            reference=reference,
            leg=leg,
            transfer=t,
            lead=body["leadPassenger"],
            action=JobAction.NEW,
        )
        for leg, t in legs
    ]
    receipt = _receive(caller, raw)
    return StOutcome(
        booking_reference=reference,
        supplier_references=[r.job_ref for r in receipt.results],
        created=any(r.outcome == JobOutcome.CREATED for r in receipt.results),
    )


def st_booking_amend(*, caller: Caller, reference: str, payload: Any) -> StOutcome:
    """PUT /v1/bookings/{reference}: an ``Amendment`` creates or amends each leg as sent,
    and cancels a leg sent with status ``Cancelled``. The other modification types
    (a declined or not provided transfer, a late collection, a driver no-show) report
    what happened on the day: acknowledged for a booking we hold, nothing rebooked."""
    intake_sender_admit(
        caller=caller, sender_kind=SENDER_KIND, intake_format=IntakeFormat.ST_SPEC_V1
    )
    reference = st_payload_check(reference, BOOKING_REFERENCE)
    body = st_payload_check(payload, AMEND_BOOKING)
    if body["modificationType"] != "Amendment":
        return StOutcome(
            booking_reference=reference, supplier_references=list(_held_legs(caller, reference))
        )
    legs = _legs(body["transfers"])
    refs = [st_job_ref(reference, leg) for leg, _ in legs]
    existing = intake_existing_bookings(account=caller.account, job_refs=refs)
    raw = []
    for leg, transfer in legs:
        ref = st_job_ref(reference, leg)
        if transfer["status"] == "Cancelled":
            if ref in existing:
                raw.append({"jobRef": ref, "action": JobAction.CANCEL})
            continue
        action = JobAction.AMEND if ref in existing else JobAction.NEW
        raw.append(
            st_leg_job(
                reference=reference,
                leg=leg,
                transfer=transfer,
                lead=body["leadPassenger"],
                action=action,
            )
        )
    receipt = _receive(caller, raw) if raw else None
    results = receipt.results if receipt is not None else []
    known = intake_existing_bookings(account=caller.account, job_refs=refs)
    return StOutcome(
        booking_reference=reference,
        supplier_references=[ref for ref in refs if ref in known],
        created=any(r.outcome == JobOutcome.CREATED for r in results),
    )


def st_booking_cancel(*, caller: Caller, reference: str, payload: Any) -> StOutcome:
    """DELETE /v1/bookings/{reference}: cancel every leg we hold; 404 ``job_not_found``
    for a booking we never received. Cancelling again is answered as the first time."""
    intake_sender_admit(
        caller=caller, sender_kind=SENDER_KIND, intake_format=IntakeFormat.ST_SPEC_V1
    )
    reference = st_payload_check(reference, BOOKING_REFERENCE)
    body = st_payload_check(payload, CANCEL_BOOKING)
    existing = _held_legs(caller, reference)
    reason = f"Cancelled by Suntransfers ({body['cancellationAuthor']})."
    if body.get("notes"):
        reason = f"{reason} {body['notes']}"
    raw = [
        {"jobRef": ref, "action": JobAction.CANCEL, "notes": reason[:NOTES_MAX]} for ref in existing
    ]
    _receive(caller, raw)
    return StOutcome(booking_reference=reference, supplier_references=list(existing))


def _held_legs(caller: Caller, reference: str) -> dict:
    refs = [st_job_ref(reference, leg) for leg in range(1, MAX_LEGS + 1)]
    existing = intake_existing_bookings(account=caller.account, job_refs=refs)
    if not existing:
        raise DomainError("job_not_found", f"Booking '{reference}' not found.")
    return {ref: existing[ref] for ref in refs if ref in existing}


# --- reading a booking back -----------------------------------------------------------------

# Our booking statuses as the driver events the marketplace follows (BookingEventType).
DRIVER_EVENTS = {
    BookingStatus.EN_ROUTE: "DriverDepartedToPickup",
    BookingStatus.ARRIVED: "DriverArrivedAtPickup",
    BookingStatus.NO_SHOW: "DriverSubmittedCustomerNoShow",
    BookingStatus.ON_BOARD: "DriverDepartedToDropoff",
    BookingStatus.COMPLETED: "DriverArrivedAtDropoff",
}


def _utc(moment: dt.datetime) -> str:
    return moment.astimezone(dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _local(moment: dt.datetime) -> str:
    return moment.astimezone(local_zone()).isoformat(timespec="seconds")


def st_booking_get(*, caller: Caller, reference: str) -> dict[str, Any]:
    """GET /v1/bookings/{reference}: the booking's state as the spec words it."""
    reference = st_payload_check(reference, BOOKING_REFERENCE)
    held = _held_legs(caller, reference)
    amended = set(
        BookingEvent.objects.filter(
            booking__in=list(held.values()), type=events.AMENDED
        ).values_list("booking_id", flat=True)
    )
    transfers, states = [], []
    for ref, booking in held.items():
        if booking.status == BookingStatus.CANCELLED:
            state = "Cancelled"
        elif booking.pk in amended:
            state = "Modified"
        else:
            state = "Created"
        states.append(state)
        transfers.append(
            {
                "transferDateTime": _local(booking.pickup_time),
                "status": state,
                "pickupDateTime": _local(booking.pickup_time),
                "supplierReference": ref,
            }
        )
    return {
        "bookingReference": reference,
        "status": _booking_status(states),
        "createdAtUtc": _utc(min(b.created_at for b in held.values())),
        "lastModifiedAtUtc": _utc(max(b.updated_at for b in held.values())),
        "transfers": transfers,
    }


def _booking_status(states: list[str]) -> str:
    for state in ("Cancelled", "Modified"):
        if all(s == state for s in states):
            return state
        if any(s == state for s in states):
            return f"Partially{state}"
    return "Created"


def st_booking_events(*, caller: Caller, reference: str, query: dict) -> dict[str, Any]:
    """GET /v1/bookings/{reference}/events?leg=&sort=: the driver's progress on one leg."""
    reference = st_payload_check(reference, BOOKING_REFERENCE)
    # Query parameters arrive as text; the leg is an integer.
    leg_text = query.get("leg")
    if isinstance(leg_text, str) and leg_text.isascii() and leg_text.isdigit():
        query = {**query, "leg": int(leg_text)}
    query = st_payload_check(query, EVENTS_QUERY)
    leg = query["leg"]
    booking = _held_legs(caller, reference).get(st_job_ref(reference, leg))
    if booking is None:
        raise DomainError("job_not_found", f"Booking '{reference}' has no leg {leg}.")
    moves = BookingEvent.objects.filter(
        booking=booking, type=events.STATUS_CHANGED, to_status__in=list(DRIVER_EVENTS)
    )
    if query.get("startingAt"):
        moves = moves.filter(created_at__gte=_moment(query["startingAt"]))
    if query.get("endingAt"):
        moves = moves.filter(created_at__lte=_moment(query["endingAt"]))
    order = "sequence" if query["sort"] == "Asc" else "-sequence"
    return {
        "bookingReference": reference,
        "leg": leg,
        "items": [
            {"eventType": DRIVER_EVENTS[event.to_status], "occurredAt": _local(event.created_at)}
            for event in moves.order_by(order)
        ],
    }


# --- quotes ---------------------------------------------------------------------------------


def st_quotes_create(*, caller: Caller, payload: Any) -> dict[str, Any]:
    """POST /v1/quotes: each transfer priced as the booking API prices it (the council
    tariff, or the account's approved rate), one quote per transfer for the vehicle asked.

    The quote's id is this service's quote id, valid until the quote expires. Refusals
    (an unknown place, a party too large, a time in the past) are 400 like any request.
    """
    body = st_payload_check(payload, QUOTE_REQUEST)
    transfers = []
    for index, transfer in enumerate(body["transfers"]):
        vehicle = transfer["vehicle"]
        try:
            quote = quote_request(
                caller=caller,
                pickup=_quoted_place(transfer["origin"]),
                dropoff=_quoted_place(transfer["destination"]),
                depart_at=_moment(transfer["transferDateTime"]),
                passengers=transfer["passengers"]["total"],
                vehicle_type="wav" if vehicle["isWheelchairAccessible"] else None,
            )
        except DomainError as error:
            raise DomainError(
                error.code, f"transfer {index + 1}: {error.detail}", errors=error.errors
            ) from error
        fare = float(quote.fare)
        transfers.append(
            {
                "quotes": [
                    {
                        "id": str(quote.pk),
                        "vehicle": vehicle,
                        "validUntilUtc": _utc(quote.expires_at),
                        "price": {"baseRate": fare, "totalRate": fare},
                    }
                ]
            }
        )
    return {"transfers": transfers}
