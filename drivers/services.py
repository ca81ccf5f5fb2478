"""Driver accounts: sign-up, approval, availability (seed section 3, contract 6)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, datetime, timedelta

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.core.validators import URLValidator
from django.db import DatabaseError, IntegrityError, transaction
from django.db.models import Q
from django.utils import timezone

from core.callers import Caller
from core.encryption import secret_encrypt
from core.errors import DomainError
from drivers import positions
from drivers.models import APPROVED_STAGES, Driver, DriverStage, NetworkTier, Vehicle
from drivers.positions import Fix, PositionsUnavailable, Recorded, ReportLimit
from drivers.positions.plausibility import fixes_plausible_check
from drivers.signals import driver_became_available
from guards.ratelimits import limit_enforce, rate_parse

# What a 503 from the position store asks the device to wait, in seconds.
POSITIONS_RETRY_AFTER_SECONDS = 5


@dataclass
class DriverApplication:
    """What the sign-up form collects: the driver, their licence and their vehicle."""

    username: str
    password: str
    name: str
    phone: str  # E.164
    email: str
    licensing_authority: str
    licence_number: str
    licence_expiry: date
    base_city: str
    base_lat: float
    base_lng: float
    operating_radius_km: float
    network: str
    vehicle_make: str
    vehicle_model: str
    vehicle_colour: str
    vehicle_registration: str
    vehicle_class: str
    vehicle_seats: int
    vehicle_wheelchair_accessible: bool
    vehicle_licensing_authority: str
    vehicle_plate_number: str
    vehicle_plate_expiry: date


@transaction.atomic
def driver_signup(*, application: DriverApplication) -> Driver:
    """Create the login, the driver (stage ``signed_up``) and their vehicle.

    Guarantees: nothing is offered to the driver until an operator approves them; the
    three rows are created together or not at all. One login per email: the username's
    unique constraint decides between concurrent sign-ups, and the losers get 400
    ``invalid_input`` naming ``email`` (the form's own check is only the friendly message).
    """
    try:
        with transaction.atomic():
            user = get_user_model().objects.create_user(
                username=application.username,
                email=application.email,
                password=application.password,
            )
    except IntegrityError:
        raise DomainError(
            "invalid_input",
            "An account with this email already exists.",
            errors={"email": ["An account with this email already exists."]},
        ) from None
    driver = Driver.objects.create(
        user=user,
        name=application.name,
        phone=application.phone,
        email=application.email,
        stage=DriverStage.SIGNED_UP,
        licensing_authority=application.licensing_authority,
        licence_number=application.licence_number,
        licence_expiry=application.licence_expiry,
        base_city=application.base_city,
        base_lat=application.base_lat,
        base_lng=application.base_lng,
        operating_radius_km=application.operating_radius_km,
        network=application.network or NetworkTier.LOCAL,
    )
    Vehicle.objects.create(
        driver=driver,
        make=application.vehicle_make,
        model=application.vehicle_model,
        colour=application.vehicle_colour,
        registration=application.vehicle_registration.upper(),
        vehicle_class=application.vehicle_class,
        seats=application.vehicle_seats,
        wheelchair_accessible=application.vehicle_wheelchair_accessible,
        licensing_authority=application.vehicle_licensing_authority,
        plate_number=application.vehicle_plate_number,
        plate_expiry=application.vehicle_plate_expiry,
    )
    return driver


def driver_approve(*, driver: Driver, approved_by=None, now: datetime | None = None) -> bool:
    """Approve a signed-up driver: the free trial starts from ``approved_at`` (seed 8.2;
    billing's subscription holds its length and end).

    Guarantees: only a ``signed_up`` driver moves, through a guarded UPDATE, so approving
    twice never restarts a trial. Returns True when this call approved.
    """
    now = now or timezone.now()
    changes = {"stage": DriverStage.TRIAL, "approved_at": now}
    if approved_by is not None:
        changes["approved_by"] = approved_by
    approved = Driver.objects.filter(pk=driver.pk, stage=DriverStage.SIGNED_UP).update(**changes)
    driver.refresh_from_db()
    return bool(approved)


def driver_availability_set(
    *,
    driver: Driver,
    online: bool,
    lat: float | None = None,
    lng: float | None = None,
    now: datetime | None = None,
) -> Driver:
    """Report the driver's live state from the app: online flag and position.

    Going online needs a position (the matcher searches by it). Guarantees: only the
    live-state columns are written, so a concurrent job-load change is never overwritten;
    a driver who becomes available (was offline or not seen lately) is announced after
    commit (``drivers.signals.driver_became_available``).
    """
    now = now or timezone.now()
    if online and (lat is None or lng is None):
        raise DomainError(
            "invalid_input",
            "A position is needed to go online.",
            errors={
                "lat": ["Required when online is true."],
                "lng": ["Required when online is true."],
            },
        )
    if online and driver.stage not in APPROVED_STAGES:
        raise DomainError(
            "permission_denied", "Jobs are offered only after an operator approves you."
        )
    changes: dict = {"online": online, "last_seen_at": now}
    if lat is not None and lng is not None:
        changes.update(last_lat=lat, last_lng=lng)
    with transaction.atomic():
        # Offline, or not seen for longer than the matcher allows: going online now makes
        # the driver newly available, and bookings nobody could take are offered again.
        stale = now - timedelta(seconds=settings.DISPATCH_DRIVER_SEEN_WITHIN_SECONDS)
        unavailable = Q(online=False) | Q(last_seen_at__isnull=True) | Q(last_seen_at__lt=stale)
        became_available = (
            online and Driver.objects.filter(unavailable, pk=driver.pk).update(**changes) == 1
        )
        if not became_available:
            Driver.objects.filter(pk=driver.pk).update(**changes)
        else:
            transaction.on_commit(
                lambda: driver_became_available.send(sender=Driver, driver_id=driver.pk),
                robust=True,
            )
    driver.refresh_from_db()
    driver_position_index(driver=driver, at=now)
    return driver


def driver_position_index(*, driver: Driver, at: datetime) -> None:
    """Put the driver into the matching index at their row's position (online) or take
    them out of it (offline), under the classes of their active vehicles; with the
    database backend the row is the index and this writes nothing. 503
    ``service_unavailable`` when the position store does not answer."""
    classes = sorted(
        set(driver.vehicles.filter(active=True).values_list("vehicle_class", flat=True))
    )
    try:
        positions.position_availability_set(
            driver_id=driver.pk,
            online=driver.online,
            lat=driver.last_lat,
            lng=driver.last_lng,
            at=at,
            vehicle_classes=classes,
        )
    except PositionsUnavailable as exc:
        raise DomainError(
            "service_unavailable",
            "Your availability is saved but the position store did not answer; try again.",
            extra={"retryAfter": POSITIONS_RETRY_AFTER_SECONDS},
        ) from exc


def driver_payment_link_set(*, driver: Driver, link: str) -> Driver:
    """Store the driver's own payment link (seed 1), or clear it with an empty one.

    Passengers open it from the pay-the-driver page, so only an absolute https address is
    taken: never another scheme (javascript:, http:) and never a relative path."""
    link = link.strip()
    if link:
        try:
            URLValidator(schemes=["https"])(link)
        except ValidationError:
            raise DomainError(
                "invalid_input",
                "A payment link is an https:// address from your card processor.",
                errors={"payment_link": ["Give an https:// address."]},
            ) from None
        if len(link) > Driver._meta.get_field("payment_link").max_length:
            raise DomainError(
                "invalid_input",
                "That payment link is too long.",
                errors={"payment_link": ["At most 300 characters."]},
            )
    Driver.objects.filter(pk=driver.pk).update(payment_link=link)
    driver.payment_link = link
    return driver


def driver_maps_key_set(*, driver: Driver, key: str) -> None:
    """Store the driver's own maps API key encrypted (seed 8.5); an empty key removes it.

    The plaintext is not kept anywhere: not on the row, not on ``driver`` afterwards.
    """
    key = key.strip()
    if len(key) > 500 or any(c.isspace() for c in key):
        raise DomainError("invalid_input", "A maps API key is one word of at most 500 characters.")
    driver.maps_api_key_encrypted = secret_encrypt(key)
    Driver.objects.filter(pk=driver.pk).update(maps_api_key_encrypted=driver.maps_api_key_encrypted)


# Reports per driver (settings.RATELIMITS, RATELIMIT_DRIVER_LOCATION), both doors together.
REPORT_LIMIT_SCOPE = "driver_location"


def report_limit() -> ReportLimit | None:
    """The driver's report limit, which the position store counts in the same call that
    records the report (None with rate limits off)."""
    if not settings.RATELIMIT_ENABLE:
        return None
    count, seconds = rate_parse(settings.RATELIMITS[REPORT_LIMIT_SCOPE])
    return ReportLimit(scope=REPORT_LIMIT_SCOPE, count=count, seconds=seconds)


def driver_location_report(
    *, driver_id: int | None, vehicle_classes: Sequence[str], fixes: Sequence[Fix]
) -> Recorded:
    """Record a report from the driver's device: one fix or a batch the phone buffered
    (POST /v1/driver/location, the OsmAnd path; every few seconds per car).

    Guarantees: no ORM and no write to the driver's row with the Redis backend; the live
    position goes to the position store (``drivers.positions.position_record``), and the
    system of record gets at most one trail row per driver per ``POSITIONS_TRAIL_SECONDS``
    while they hold a job. No event is sent from here: the booking.driver_location sender
    (partners.services.driver_locations) reads the latest position when its interval is
    up. Does not change ``online``: a driver finishing a trip may have stopped taking new
    jobs. A report with a fix no car could have reached from the one before it is refused
    whole, nothing recorded: 422 ``position_implausible``
    (``drivers.positions.plausibility``). Each report counts against the driver's limit
    (:func:`report_limit`), 429 ``rate_limited`` beyond it. 403 ``permission_denied`` for a login that is not a driver's; 503
    ``service_unavailable`` when the position store or the database does not answer.
    """
    if driver_id is None:
        raise DomainError(
            "permission_denied", "This login is not a driver's: the driver app API is for drivers."
        )
    try:
        fixes_plausible_check(previous=positions.position_latest(driver_id), fixes=fixes)
        return positions.position_record(
            driver_id=driver_id,
            fixes=fixes,
            vehicle_classes=vehicle_classes,
            limit=report_limit(),
        )
    except (PositionsUnavailable, DatabaseError) as exc:
        raise DomainError(
            "service_unavailable",
            "Positions cannot be recorded right now; send them again shortly.",
            extra={"retryAfter": POSITIONS_RETRY_AFTER_SECONDS},
        ) from exc


def driver_request_admit(*, driver: Driver) -> None:
    """A driver's own call to the driver app API, whichever endpoint: counted per driver
    against RATELIMIT_DRIVER (429 ``rate_limited`` beyond it). The position reports count
    against their own limit instead (:func:`report_limit`)."""
    limit_enforce(Caller(), "driver", value=f"driver:{driver.pk}")


def driver_login_admit(*, caller: Caller) -> None:
    """A login to the driver app, before the password is checked: counted per client (its
    address) against RATELIMIT_DRIVER (429 ``rate_limited`` beyond it)."""
    limit_enforce(caller, "driver")
