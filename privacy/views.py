"""The privacy pages (contract 11): the notice, a passenger's requests for a copy or
erasure of their data confirmed by an emailed link, and a driver's from the signed-in
driver pages."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import Http404, JsonResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_http_methods

from core.errors import DomainError
from privacy.forms import DataRequestForm, DriverDataRequestForm
from privacy.models import DataRequestKind
from privacy.schedule import retention_schedule
from privacy.selectors import cookies, processors
from privacy.services import requests as data_requests


@require_http_methods(["GET", "POST"])
def privacy_notice(request):
    """GET /privacy/: the notice, read from the retention schedule; POST asks for a link."""
    form = DataRequestForm(request.POST if request.method == "POST" else None)
    if form.is_valid():
        data_requests.data_request_start(**form.cleaned_data)
        return redirect(reverse("privacy-request-sent"))
    context = {
        "form": form,
        "schedule": retention_schedule(),
        "processors": processors(),
        "cookies": cookies(),
    }
    status = 400 if request.method == "POST" else 200
    return render(request, "privacy/notice.html", context, status=status)


@require_GET
def privacy_request_sent(request):
    return render(request, "privacy/request_sent.html")


def _request_or_refusal(request, token):
    try:
        return data_requests.data_request_for_token(token), None
    except DomainError as error:
        status = 410 if error.code == "link_expired" else 404
        page = render(request, "privacy/request_invalid.html", {"error": error}, status=status)
        return None, page


@require_http_methods(["GET", "POST"])
def privacy_request(request, token: str):
    """The emailed link: GET asks to confirm (a mail scanner's visit changes nothing), POST
    carries the request out; then the data (access) or what was erased and kept."""
    data_request, refusal = _request_or_refusal(request, token)
    if refusal:
        return refusal
    if request.method == "POST":
        data_request = data_requests.data_request_confirm(token)
    context = {"request_": data_request, "token": token}
    if data_request.completed_at and data_request.kind == DataRequestKind.ACCESS:
        context["data"] = data_requests.passenger_data(data_request.email)
    return render(request, "privacy/request.html", context)


@require_GET
def privacy_request_data(request, token: str):
    """The download of a confirmed access request: JSON, as an attachment."""
    data_request, refusal = _request_or_refusal(request, token)
    if refusal or not data_request.completed_at or data_request.kind != DataRequestKind.ACCESS:
        raise Http404("No such download")
    response = JsonResponse(
        data_requests.passenger_data(data_request.email), json_dumps_params={"indent": 2}
    )
    response["Content-Disposition"] = 'attachment; filename="my-taxi-data.json"'
    return response


@login_required(login_url="/driver/login/")
@require_http_methods(["GET", "POST"])
def driver_privacy(request):
    """The driver's own: a download of their data and a request for staff to answer."""
    driver = getattr(request.user, "driver", None)
    if driver is None:
        raise Http404("Not a driver")
    if request.GET.get("download"):
        response = JsonResponse(data_requests.driver_data(driver), json_dumps_params={"indent": 2})
        response["Content-Disposition"] = 'attachment; filename="my-driver-data.json"'
        return response
    form = DriverDataRequestForm(request.POST if request.method == "POST" else None)
    recorded = None
    if form.is_valid():
        recorded = data_requests.driver_request_record(driver=driver, **form.cleaned_data)
    context = {
        "form": form,
        "recorded": recorded,
        "deadline": data_requests.deadline_of(recorded) if recorded else None,
        "schedule": retention_schedule(),
    }
    return render(request, "privacy/driver.html", context)
