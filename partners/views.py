"""The operator dashboard: its own queue, a day calendar, and assignment to its own fleet
(seed section 4 rule 2). Django login; a user reaches an operator through OperatorUser."""

from __future__ import annotations

import datetime as dt
from functools import wraps

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils import timezone
from django.views.decorators.http import require_POST

from bookings.models import Booking, BookingStatus, DispatchQueue
from bookings.transitions import ASSIGNABLE
from core.errors import DomainError
from core.localtime import local_datetime, local_today
from partners.selectors import (
    operator_account_for_user,
    operator_fleet_list,
    operator_jobs_list,
)
from partners.services.operator import operator_job_assign


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


@operator_required
def operator_job_list(request: HttpRequest, account) -> HttpResponse:
    status = request.GET.get("status") or None
    if status not in BookingStatus.values:
        status = None
    jobs = operator_jobs_list(
        account=account, status=status, upcoming_only=status is None, now=timezone.now()
    )[:500]
    return render(
        request,
        "partners/operator/job_list.html",
        {
            "account": account,
            "jobs": jobs,
            "statuses": BookingStatus.choices,
            "status": status,
            "fleet": operator_fleet_list(account=account),
            "assignable": ASSIGNABLE,
        },
    )


@operator_required
def operator_calendar(request: HttpRequest, account) -> HttpResponse:
    try:
        day = dt.date.fromisoformat(request.GET.get("day", ""))
    except ValueError:
        day = local_today()
    jobs = list(operator_jobs_list(account=account, day=day))
    hours: dict[int, list[Booking]] = {}
    for job in jobs:
        hours.setdefault(local_datetime(job.pickup_time).hour, []).append(job)
    return render(
        request,
        "partners/operator/calendar.html",
        {
            "account": account,
            "day": day,
            "previous_day": day - dt.timedelta(days=1),
            "next_day": day + dt.timedelta(days=1),
            "hours": [(hour, hours.get(hour, [])) for hour in range(24)],
            "job_count": len(jobs),
            "fleet": operator_fleet_list(account=account),
            "assignable": ASSIGNABLE,
        },
    )


@require_POST
@operator_required
def operator_job_assign_view(request: HttpRequest, account, reference: str) -> HttpResponse:
    booking = get_object_or_404(
        Booking, reference=reference, account=account, dispatch_queue=DispatchQueue.OPERATOR
    )
    driver = account.fleet_drivers.filter(pk=request.POST.get("driver") or 0).first()
    if driver is None:
        messages.error(request, "Choose one of your own drivers.")
        return redirect(request.POST.get("next") or "operator-jobs")
    vehicle = driver.vehicles.filter(pk=request.POST.get("vehicle") or 0).first()
    try:
        operator_job_assign(
            account=account,
            booking=booking,
            driver=driver,
            vehicle=vehicle,
            actor=f"operator-user:{request.user.get_username()}",
        )
    except DomainError as problem:
        messages.error(request, problem.detail)
    else:
        messages.success(request, f"{booking.reference} assigned to {driver.name}.")
    next_url = request.POST.get("next", "")
    if next_url.startswith("/") and not next_url.startswith("//"):
        return redirect(next_url)
    return redirect("operator-jobs")
