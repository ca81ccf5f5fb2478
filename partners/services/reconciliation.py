"""Reconciliation: a sender reads back the jobs it pushed (contract 4.2)."""

from __future__ import annotations

from api.ratelimits import limit_enforce
from bookings.models import Booking
from core.callers import Caller
from partners.selectors import job_get_for_sender


def job_reconcile(*, caller: Caller, job_ref: str) -> Booking:
    """The booking the caller's account pushed as ``job_ref``, with its driver and vehicle.

    Guarantees: only the sender sees its own jobs; another sender's jobRef is 404
    ``job_not_found`` exactly like one never pushed, so references stay private.
    """
    limit_enforce(caller, "intake")
    return job_get_for_sender(account=caller.account, job_ref=job_ref)
