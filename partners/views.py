"""The operator dashboard: its own queue, a day calendar, and assignment to its own fleet
(seed section 4 rule 2). Django login; a user reaches an operator through OperatorUser."""

from __future__ import annotations

from functools import wraps

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render, resolve_url
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.http import require_POST

from api.problems import STATUS_BY_CODE
from bookings.models import BookingStatus
from bookings.transitions import ASSIGNABLE
from core.errors import DomainError
from partners.selectors import (
    operator_account_for_user,
    operator_calendar_day,
    operator_fleet_list,
    operator_jobs_page,
)
from partners.services.operator import operator_job_assign_chosen
from pricing.models import SubmitterKind
from pricing.submissions.figures import table_form_context
from pricing.submissions.sending import Submitter, submissions_of, tariff_submission_from_form

TABLE_RECEIVED = (
    "Table #{pk} received: staff check it against the photo, and a second staff member approves it."
)


def operator_required(view):
    """Logged in, and linked to an operator account; the account is passed to the view."""

    @login_required(login_url="operator-login")
    @wraps(view)
    def wrapper(request: HttpRequest, *args, **kwargs):
        account = operator_account_for_user(request.user)
        if account is None:
            raise PermissionDenied("This login is not linked to an operator.")
        return view(request, account, *args, **kwargs)

    return wrapper


def safe_next_url(request: HttpRequest, default: str) -> str:
    """The form's ``next`` when it stays on this site (no open redirect), else ``default``."""
    next_url = request.POST.get("next", "")
    allowed = url_has_allowed_host_and_scheme(
        next_url, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    )
    return next_url if allowed else resolve_url(default)


@operator_required
def operator_job_list(request: HttpRequest, account) -> HttpResponse:
    status, jobs = operator_jobs_page(account=account, status=request.GET.get("status") or None)
    context = {"account": account, "jobs": jobs, "statuses": BookingStatus.choices}
    context.update(status=status, **_assign_form(account))
    return render(request, "partners/operator/job_list.html", context)


@operator_required
def operator_calendar(request: HttpRequest, account) -> HttpResponse:
    calendar = operator_calendar_day(account=account, day=request.GET.get("day"))
    context = {"account": account, "day": calendar.day, "hours": calendar.hours}
    context.update(previous_day=calendar.previous_day, next_day=calendar.next_day)
    context.update(job_count=calendar.job_count, week=calendar.week, **_assign_form(account))
    return render(request, "partners/operator/calendar.html", context)


def _assign_form(account) -> dict:
    return {"fleet": operator_fleet_list(account=account), "assignable": ASSIGNABLE}


@require_POST
@operator_required
def operator_job_assign_view(request: HttpRequest, account, reference: str) -> HttpResponse:
    try:
        booking = operator_job_assign_chosen(
            account=account,
            reference=reference,
            driver_id=request.POST.get("driver"),
            vehicle_id=request.POST.get("vehicle"),
            actor=f"operator-user:{request.user.get_username()}",
        )
    except DomainError as problem:
        _assign_refused(request, problem)
    else:
        messages.success(request, f"{booking.reference} assigned to {booking.driver.name}.")
    return redirect(safe_next_url(request, default="operator-jobs"))


# What the operator reads for each code the assign form can meet (booking_not_found is 404).
ASSIGN_REFUSALS = {
    "invalid_transition": "This job has moved on since the page was loaded and can no longer "
    "be assigned. The page now shows its current status.",
}


def _assign_refused(request: HttpRequest, problem: DomainError) -> None:
    """Another operator's job is 404, as if it did not exist; anything else is a message."""
    if problem.code == "booking_not_found":
        raise Http404(problem.detail)
    messages.error(request, ASSIGN_REFUSALS.get(problem.code, problem.detail))


def _operator_submitter(request: HttpRequest, account) -> Submitter:
    return Submitter(
        user=request.user, kind=SubmitterKind.OPERATOR, name=account.name, account=account
    )


@operator_required
def operator_tables(request: HttpRequest, account) -> HttpResponse:
    """The operator sends in its authority's fare table with a photo of it (issue 33,
    ``pricing.submissions``), and sees what became of the ones it sent."""
    refusal = None
    if request.method == "POST":
        try:
            submission = tariff_submission_from_form(
                submitter=_operator_submitter(request, account),
                data=request.POST,
                files=request.FILES,
            )
        except DomainError as refused:
            refusal = refused
        else:
            messages.success(request, TABLE_RECEIVED.format(pk=submission.pk))
            return redirect("operator-tables")
    context = {"account": account, "refusal": refusal, "submissions": submissions_of(request.user)}
    status = STATUS_BY_CODE.get(refusal.code, 400) if refusal else 200
    form = table_form_context(request.POST if refusal else None)
    return render(request, "partners/operator/tables.html", {**context, **form}, status=status)
