"""Billing's part of the driver app API, included by api/urls.py under /api/public/."""

from django.urls import path

from billing.api import views

urlpatterns = [
    path(
        "v1/driver/subscription",
        views.DriverSubscriptionView.as_view(),
        name="driver-subscription",
    ),
]
