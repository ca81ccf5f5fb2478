"""The retention job: applies privacy.schedule to every kind of record (issue 39).

Each kind is worked through in batches of ``PRIVACY_RETENTION_BATCH`` rows, each batch
in its own short transaction (the ids first, then one UPDATE or DELETE by id), so no
live table is locked for long and a run stopped half way has done whole batches only.
A run finds nothing left to do when run again: what it minimised no longer matches
(its contact fields are empty), what it deleted is gone. Records under an open
``privacy.Hold`` are passed over and say why in the admin.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

import structlog
from dateutil.relativedelta import relativedelta
from django.conf import settings
from django.db import OperationalError, connection, transaction
from django.db.models import Exists, OuterRef, Q
from django.utils import timezone
from oauth2_provider.models import get_access_token_model, get_grant_model

from agents.models import SignInCode
from billing.models import Invoice
from bookings.models import Booking, EmailConfirmation, Passenger
from dispatch.models import NotificationLog
from drivers.models import PositionSample
from guards.models import ScreeningRejection
from partners.models import SupportRequest, WebhookDelivery, WebhookDeliveryStatus
from pricing.licensing import district_at
from pricing.models import SubmissionStatus, TariffSubmission
from privacy.models import DataRequest, Hold, StaffView
from privacy.schedule import (
    authority_periods,
    booking_kept_until,
    booking_record_months,
    retention,
)

log = structlog.get_logger(__name__)

CONTACT_FIELDS = ("passenger_name", "passenger_email", "passenger_phone", "notes", "flight_number")


@dataclass
class RetentionReport:
    counts: dict[str, int] = field(default_factory=dict)
    held: int = 0
    invoices_past_period: int = 0

    def add(self, key: str, count: int) -> None:
        self.counts[key] = self.counts.get(key, 0) + count


def _open_holds() -> Exists:
    return Exists(Hold.objects.filter(booking=OuterRef("pk"), released_at__isnull=True))


def _batches(queryset, batch: int) -> Iterator[list[int]]:
    """The ids of ``queryset`` in ascending order, a batch at a time (keyset, so rows
    changed by an earlier batch are never read twice)."""
    last = 0
    while True:
        ids = list(queryset.filter(pk__gt=last).order_by("pk").values_list("pk", flat=True)[:batch])
        if not ids:
            return
        yield ids
        last = ids[-1]


def _cancelled(error: OperationalError) -> bool:
    """A statement PostgreSQL cancelled at its statement_timeout (SQLSTATE 57014)."""
    return getattr(error.__cause__, "sqlstate", None) == "57014"


def _bounded(apply: Callable[[list[int]], int], ids: list[int]) -> int:
    """``apply`` to ``ids`` in one transaction whose statements PostgreSQL cancels after
    PRIVACY_RETENTION_LOCK_MS, so the job never holds its row locks longer, whatever the
    load (a cancelled statement rolls back and releases them): the ids are then applied in
    halves, and a single row that still cannot be changed in time (a live request holds
    it) is left for the next run."""
    bounded = connection.vendor == "postgresql"
    try:
        with transaction.atomic():
            if bounded:
                with connection.cursor() as cursor:
                    cursor.execute("SHOW statement_timeout")
                    (before,) = cursor.fetchone()
                    cursor.execute(
                        f"SET LOCAL statement_timeout = {int(settings.PRIVACY_RETENTION_LOCK_MS)}"
                    )
            done = apply(ids)
            if bounded:  # inside a caller's transaction, SET LOCAL would outlive this block
                with connection.cursor() as cursor:
                    cursor.execute("SELECT set_config('statement_timeout', %s, true)", [before])
            return done
    except OperationalError as error:
        if not _cancelled(error):
            raise
    if len(ids) == 1:
        log.info("retention: row left for the next run", row=ids[0])
        return 0
    half = len(ids) // 2
    return _bounded(apply, ids[:half]) + _bounded(apply, ids[half:])


def _delete_in_batches(queryset, batch: int) -> int:
    label = queryset.model._meta.label

    def delete(ids: list[int]) -> int:
        return queryset.model.objects.filter(pk__in=ids).delete()[1].get(label, 0)

    return sum(_bounded(delete, ids) for ids in _batches(queryset, batch))


def contact_remove(ids: list[int], *, now: dt.datetime) -> int:
    """The passenger's details go from these bookings (those under no open hold), and with
    them the support requests MaaS providers raised on them, which may name the traveller
    (TOMP's ``contactInformationEndUser``). Returns how many bookings were minimised."""
    due = Booking.objects.filter(pk__in=ids).exclude(_open_holds())
    SupportRequest.objects.filter(booking__in=due).delete()
    return due.update(**dict.fromkeys(CONTACT_FIELDS, ""), updated_at=now)


def bookings_minimise(now: dt.datetime, batch: int, report: RetentionReport) -> int:
    """Bookings past their pickup authority's record-keeping period lose the passenger's
    contact details; the statutory fields stay (contract 11)."""
    known = (period.months for period in authority_periods().values())
    shortest = min(booking_record_months(None), *known)
    has_contact = Q()
    for name in CONTACT_FIELDS:
        has_contact |= ~Q(**{name: ""})
    candidates = Booking.objects.filter(
        has_contact, pickup_time__lt=now - relativedelta(months=shortest)
    )
    report.held += candidates.filter(_open_holds()).count()
    candidates = candidates.exclude(_open_holds())
    minimised = 0
    last = 0
    while True:
        rows = list(
            candidates.filter(pk__gt=last)
            .order_by("pk")
            .values_list("pk", "pickup_time", "pickup_lat", "pickup_lng")[:batch]
        )
        if not rows:
            return minimised
        last = rows[-1][0]
        due = [
            pk
            for pk, pickup_time, lat, lng in rows
            if booking_kept_until(pickup_time, _district_code(lat, lng)) <= now
        ]
        if due:
            minimised += _bounded(lambda ids: contact_remove(ids, now=now), due)


def passengers_delete(now: dt.datetime, batch: int, report: RetentionReport) -> int:
    """Passenger accounts that no kept booking names, not blocked, past their period."""
    kept = Booking.objects.filter(passenger_email__iexact=OuterRef("email"))
    stale = Passenger.objects.filter(
        created_at__lt=now - retention("passengers").delta, blocked=False
    ).exclude(Exists(kept))
    return _delete_in_batches(stale, batch)


def position_trails_delete(now: dt.datetime, batch: int, report: RetentionReport) -> int:
    held = Hold.objects.filter(booking=OuterRef("booking_id"), released_at__isnull=True)
    old = PositionSample.objects.filter(at__lt=now - retention("position_trails").delta)
    return _delete_in_batches(old.exclude(Exists(held)), batch)


def messages_minimise(now: dt.datetime, batch: int, report: RetentionReport) -> int:
    old = NotificationLog.objects.filter(created_at__lt=now - retention("messages").delta).exclude(
        to="", body=""
    )
    minimised = 0
    for ids in _batches(old, batch):
        minimised += _bounded(
            lambda ids: NotificationLog.objects.filter(pk__in=ids).update(to="", body=""), ids
        )
    return minimised


def email_codes_delete(now: dt.datetime, batch: int, report: RetentionReport) -> int:
    cutoff = now - retention("email_codes").delta
    return _delete_in_batches(
        EmailConfirmation.objects.filter(created_at__lt=cutoff), batch
    ) + _delete_in_batches(SignInCode.objects.filter(created_at__lt=cutoff), batch)


def webhook_deliveries_delete(now: dt.datetime, batch: int, report: RetentionReport) -> int:
    done = WebhookDelivery.objects.filter(
        created_at__lt=now - retention("webhook_deliveries").delta,
        status__in=[WebhookDeliveryStatus.DELIVERED, WebhookDeliveryStatus.FAILED],
    )
    return _delete_in_batches(done, batch)


def oauth_delete(now: dt.datetime, batch: int, report: RetentionReport) -> int:
    cutoff = now - retention("oauth").delta
    grants = get_grant_model().objects.filter(expires__lt=cutoff)
    # An expired access token that a live refresh token still points at stays until the
    # refresh token is used or revoked (django-oauth-toolkit's own rule, clear_expired).
    tokens = get_access_token_model().objects.filter(expires__lt=cutoff, refresh_token__isnull=True)
    return _delete_in_batches(grants, batch) + _delete_in_batches(tokens, batch)


def screening_delete(now: dt.datetime, batch: int, report: RetentionReport) -> int:
    old = ScreeningRejection.objects.filter(created_at__lt=now - retention("screening").delta)
    return _delete_in_batches(old, batch)


def staff_views_delete(now: dt.datetime, batch: int, report: RetentionReport) -> int:
    old = StaffView.objects.filter(at__lt=now - retention("staff_views").delta)
    return _delete_in_batches(old, batch)


def data_requests_delete(now: dt.datetime, batch: int, report: RetentionReport) -> int:
    old = DataRequest.objects.filter(created_at__lt=now - retention("data_requests").delta)
    return _delete_in_batches(old, batch)


def rejected_tables_delete(now: dt.datetime, batch: int, report: RetentionReport) -> int:
    """Rejected fare tables past their period, each with its photo in the file store (a
    bulk delete would leave the files)."""
    old = TariffSubmission.objects.filter(
        status=SubmissionStatus.REJECTED,
        decided_at__lt=now - retention("rejected_tables").delta,
    )
    deleted = 0
    for ids in _batches(old, batch):
        for submission in TariffSubmission.objects.filter(pk__in=ids):
            with transaction.atomic():
                submission.delete()
            submission.photo.delete(save=False)
            deleted += 1
    return deleted


APPLIERS: dict[str, Callable[[dt.datetime, int, RetentionReport], int]] = {
    "bookings": bookings_minimise,
    "passengers": passengers_delete,
    "position_trails": position_trails_delete,
    "messages": messages_minimise,
    "email_codes": email_codes_delete,
    "webhook_deliveries": webhook_deliveries_delete,
    "oauth": oauth_delete,
    "screening": screening_delete,
    "staff_views": staff_views_delete,
    "data_requests": data_requests_delete,
    "rejected_tables": rejected_tables_delete,
}


def retention_apply(*, now: dt.datetime | None = None, batch: int | None = None) -> RetentionReport:
    """Apply the schedule once to every kind of record; safe to run twice or concurrently
    with the service (each batch is its own transaction)."""
    now = now or timezone.now()
    batch = batch or settings.PRIVACY_RETENTION_BATCH
    report = RetentionReport()
    for key, apply in APPLIERS.items():
        report.add(key, apply(now, batch, report))
    report.invoices_past_period = invoices_past_period(now).count()
    log.info("retention applied", **report.counts, held=report.held)
    return report


def invoices_past_period(now: dt.datetime):
    """Invoices past HMRC's six years: listed for staff, never deleted by the job (an
    invoice is immutable, and its deletion is an accounting act)."""
    return Invoice.objects.filter(
        period_end__lt=now - relativedelta(years=settings.PRIVACY_INVOICE_YEARS)
    )


def _district_code(lat: float | None, lng: float | None) -> str | None:
    if lat is None or lng is None:
        return None
    district = district_at(lat, lng)
    return district.code if district else None
