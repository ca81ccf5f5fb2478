"""Server-rendered driver pages: sign-up, login and the earnings dashboard."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth import views as auth_views
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse_lazy
from django.views.decorators.http import require_http_methods, require_POST

from core.errors import DomainError
from drivers import selectors, services
from drivers.forms import DriverSignupForm
from drivers.services import driver_signup

LOGIN_URL = reverse_lazy("driver-login")


@require_http_methods(["GET", "POST"])
def driver_signup_page(request: HttpRequest) -> HttpResponse:
    form = DriverSignupForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            driver_signup(application=form.application())
        except DomainError as refused:  # a sign-up with the same email won the race
            for field, problems in (refused.errors or {"__all__": [refused.detail]}).items():
                for problem in problems:
                    form.add_error(field if field in form.fields else None, problem)
        else:
            return redirect("driver-signup-done")
    return render(request, "drivers/signup.html", {"form": form})


def driver_signup_done_page(request: HttpRequest) -> HttpResponse:
    return render(request, "drivers/signup_done.html")


class DriverLoginPage(auth_views.LoginView):
    template_name = "drivers/login.html"
    next_page = reverse_lazy("driver-dashboard")
    redirect_authenticated_user = True


def _dashboard_setting_save(request: HttpRequest, save, field: str, saved: str) -> HttpResponse:
    """A dashboard form of one field: ``save(driver=, value=)`` (a drivers service), its
    refusal or ``saved`` shown as a message, then back to the dashboard."""
    driver = getattr(request.user, "driver", None)
    if driver is None:
        return render(request, "drivers/not_a_driver.html", status=403)
    try:
        save(driver=driver, value=request.POST.get(field, ""))
    except DomainError as refused:
        messages.error(request, refused.detail)
    else:
        messages.success(request, saved)
    return redirect("driver-dashboard")


@login_required(login_url=LOGIN_URL)
@require_POST
def driver_payment_link_update(request: HttpRequest) -> HttpResponse:
    """The dashboard's payment-link form (seed 1: the driver's own payment link)."""
    return _dashboard_setting_save(
        request,
        lambda driver, value: services.driver_payment_link_set(driver=driver, link=value),
        "payment_link",
        "Your payment link is saved.",
    )


@login_required(login_url=LOGIN_URL)
@require_POST
def driver_maps_key_update(request: HttpRequest) -> HttpResponse:
    """The dashboard's maps-key form (seed 8.5): stored encrypted, never shown again."""
    return _dashboard_setting_save(
        request,
        lambda driver, value: services.driver_maps_key_set(driver=driver, key=value),
        "maps_api_key",
        "Your maps API key is saved.",
    )


@login_required(login_url=LOGIN_URL)
def driver_dashboard_page(request: HttpRequest) -> HttpResponse:
    driver = getattr(request.user, "driver", None)
    if driver is None:
        return render(request, "drivers/not_a_driver.html", status=403)
    context = {
        "driver": driver,
        "dashboard": selectors.driver_dashboard(driver=driver),
        "maps_key_state": selectors.driver_maps_key_state(driver),
    }
    return render(request, "drivers/dashboard.html", context)
