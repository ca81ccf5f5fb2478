"""Reconciliation: a sender reads back the jobs it pushed, one by jobRef or every change
since a time (contract 4.2)."""

from __future__ import annotations

import base64
import datetime as dt
from dataclasses import dataclass

from bookings.models import Booking
from core.callers import Caller
from core.errors import field_error
from guards.ratelimits import limit_enforce
from partners.selectors import job_get_for_sender, jobs_changed_for_sender


def job_reconcile(*, caller: Caller, job_ref: str) -> Booking:
    """The booking the caller's account pushed as ``job_ref``, with its driver and vehicle.

    Guarantees: only the sender sees its own jobs; another sender's jobRef is 404
    ``job_not_found`` exactly like one never pushed, so references stay private.
    """
    limit_enforce(caller, "intake")
    return job_get_for_sender(account=caller.account, job_ref=job_ref)


FEED_PAGE_SIZE = 100


@dataclass(frozen=True)
class JobsChangedPage:
    """One page of the reconciliation feed: jobs by last change, oldest first."""

    jobs: list[Booking]
    next_cursor: str | None


def _cursor_encode(booking: Booking) -> str:
    raw = f"{booking.updated_at.isoformat()}|{booking.pk}"
    return base64.urlsafe_b64encode(raw.encode()).decode().rstrip("=")


def _cursor_decode(cursor: str) -> tuple[dt.datetime, int]:
    try:
        raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)).decode()
        stamp, _, pk = raw.partition("|")
        after = dt.datetime.fromisoformat(stamp)
        if after.tzinfo is None:
            raise ValueError(stamp)
        return after.astimezone(dt.UTC), int(pk)
    except (ValueError, UnicodeDecodeError, OverflowError):
        raise field_error("invalid_input", "cursor", "Not a cursor this feed gave.") from None


def jobs_changed_list(
    *,
    caller: Caller,
    updated_since: dt.datetime,
    cursor: str | None = None,
    limit: int | None = None,
) -> JobsChangedPage:
    """The caller's own pushed jobs whose state changed at or after ``updated_since``,
    oldest change first, ``limit`` at a time (contract 4.2); ``cursor`` continues where the
    previous page ended, in (updated_at, id) order so that no job is skipped or repeated
    between pages of one walk. A job that changes again moves to the end of the feed.
    """
    limit_enforce(caller, "intake")
    try:
        # The database stores UTC: 9999-12-31T23:59:59-23:59 is past the year 9999 there
        # (a 500 on SQLite, issue 24), 0001-01-01T00:00+23:59 before the year 1.
        updated_since = updated_since.astimezone(dt.UTC)
    except OverflowError:
        raise field_error(
            "invalid_input", "updatedSince", "Out of range once converted to UTC."
        ) from None
    limit = limit or FEED_PAGE_SIZE
    page = jobs_changed_for_sender(
        account=caller.account,
        updated_since=updated_since,
        after=_cursor_decode(cursor) if cursor else None,
        limit=limit + 1,
    )
    more = len(page) > limit
    page = page[:limit]
    return JobsChangedPage(jobs=page, next_cursor=_cursor_encode(page[-1]) if more else None)
