"""The driver's dashboard page: dispatch's offers with the driver's jobs and earnings
(``dispatch.selectors.driver_dashboard``) and the driver's settings. The other driver
pages are the drivers app's (sign-up, login, settings forms, the driver app's shell) and
billing's (the subscription); ``driverapp.urls`` mounts them all under ``driver/``."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from dispatch.selectors import driver_dashboard
from drivers.selectors import driver_maps_key_state
from drivers.views import LOGIN_URL


@login_required(login_url=LOGIN_URL)
def driver_dashboard_page(request: HttpRequest) -> HttpResponse:
    driver = getattr(request.user, "driver", None)
    if driver is None:
        return render(request, "drivers/not_a_driver.html", status=403)
    context = {
        "driver": driver,
        "dashboard": driver_dashboard(driver=driver),
        "maps_key_state": driver_maps_key_state(driver),
    }
    return render(request, "drivers/dashboard.html", context)
