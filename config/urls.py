from django.contrib import admin
from django.urls import include, path

from api import problems
from api.views import problem_index_page, problem_type_page
from billing.webhooks import stripe_webhook
from operations.health import healthz, readyz
from operations.metrics import metrics

urlpatterns = [
    # The public API first: Django tries patterns in order and notes every one it passes
    # on the way, so its busiest routes (quotes, instant bookings) are found soonest
    # (issue 41). No other pattern here begins with "api/public/", so none is shadowed.
    path("api/public/", include("api.urls")),
    # Operating the service (contract 10.1).
    path("healthz", healthz, name="healthz"),
    path("readyz", readyz, name="readyz"),
    path("metrics", metrics, name="metrics"),
    path("admin/", admin.site.urls),
    path("api/tomp/", include("partners.intake_formats.tomp.urls")),
    path("problems/", problem_index_page, name="problem-index"),
    path("problems/<slug:slug>", problem_type_page, name="problem-type"),
    # Stripe's webhook (issue 36): signed events, no session, no CSRF token.
    path("billing/stripe/webhook", stripe_webhook, name="stripe-webhook"),
    # The driver pages, the subscription's among them (driverapp.urls).
    path("driver/", include("driverapp.urls")),
    path("dispatch/", include("dispatch.urls")),
    path("operator/", include("partners.urls")),
    # OAuth 2.1 for AI agents (the MCP server itself is mounted in config.asgi).
    path("", include("agents.urls")),
    path("", include("bookings.urls")),
    path("", include("privacy.urls")),
    # The passenger's tracking page shows dispatch's live state, so dispatch serves it.
    path("", include("dispatch.tracking_urls")),
]

handler400 = problems.handler400
handler403 = problems.handler403
handler404 = problems.handler404
handler500 = problems.handler500
