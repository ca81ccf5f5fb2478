"""Server-rendered driver pages: sign-up, login and the dashboard's settings forms; and the
driver app (a progressive web app at ``driver/app/``: its page, manifest and service
worker). The dashboard itself shows dispatch's offers, so it is ``driverapp.views``."""

from __future__ import annotations

import hashlib
import json
from functools import lru_cache
from pathlib import Path

from django.contrib import messages
from django.contrib.auth import views as auth_views
from django.contrib.auth.decorators import login_required
from django.contrib.staticfiles import finders
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.template.loader import get_template
from django.templatetags.static import static
from django.urls import reverse, reverse_lazy
from django.views.decorators.http import require_http_methods, require_POST

from core.errors import DomainError
from drivers import services
from drivers.forms import DriverSignupForm
from drivers.services import driver_signup
from pricing.submissions.figures import table_form_context

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


# --- the driver app (PWA) --------------------------------------------------------------
# The app is one page and one script calling the driver app API (contract 6) with the
# driver's token, so it applies exactly the rules the API applies. The service worker
# keeps these files for a poor connection; the page and the script say when offline.
DRIVER_APP_TEMPLATES = ("drivers/app.html", "drivers/app_sw.js", "pricing/table_form_fields.html")
DRIVER_APP_STATIC = (
    "css/app-pages.css",
    "driver-app/app.css",
    "driver-app/app.js",
    "driver-app/icon-192.png",
    "driver-app/icon-512.png",
)


@lru_cache(maxsize=1)
def _driver_app_version() -> str:
    """A digest of the app's files: a new version empties the service worker's cache."""
    digest = hashlib.sha256()
    paths = [Path(finders.find(name)) for name in DRIVER_APP_STATIC]
    paths += [Path(get_template(name).origin.name) for name in DRIVER_APP_TEMPLATES]
    for path in paths:
        digest.update(path.read_bytes())
    return digest.hexdigest()[:12]


def driver_app_page(request: HttpRequest) -> HttpResponse:
    """The app's one page: the same for everyone (the driver signs in inside it), so the
    service worker can keep it."""
    context = {"version": _driver_app_version(), **table_form_context()}
    return render(request, "drivers/app.html", context)


def _driver_app_manifest() -> dict:
    """The web app manifest: what a phone needs to install the app on its home screen."""
    app = reverse("driver-app")
    icons = [
        {
            "src": static(f"driver-app/icon-{size}.png"),
            "sizes": f"{size}x{size}",
            "type": "image/png",
            "purpose": "any maskable",
        }
        for size in (192, 512)
    ]
    return {
        "name": "Direct-to-Driver: driver app",
        "short_name": "DTD Driver",
        "description": "Take jobs, run the trip, record the payment, see your earnings.",
        "id": app,
        "start_url": app,
        "scope": app,
        "display": "standalone",
        "orientation": "portrait",
        "background_color": "#f4f6f8",
        "theme_color": "#0b4f8a",
        "icons": icons,
    }


def driver_app_manifest(request: HttpRequest) -> JsonResponse:
    return JsonResponse(_driver_app_manifest(), content_type="application/manifest+json")


def driver_app_service_worker(request: HttpRequest) -> HttpResponse:
    """Served from ``driver/app/`` so that its scope is the app; never cached by HTTP, so
    a new version reaches phones on their next visit."""
    shell = [reverse("driver-app"), reverse("driver-app-manifest")]
    shell += [static(name) for name in DRIVER_APP_STATIC]
    response = render(
        request,
        "drivers/app_sw.js",
        # Paths of this site's own URLs and static files: JSON is safe in a script file.
        {"version": _driver_app_version(), "shell_json": json.dumps(shell)},
        content_type="text/javascript",
    )
    response["Cache-Control"] = "no-cache"
    return response
