"""The driver app's API under /api/public/ (contract 6), included once by api/urls.py.

GET v1/jobs (the driver's feed) shares its path with partner intake (POST), so the
partners app registers "v1/jobs" and hands GET to ``driverapp.api.jobs.DriverJobsFeedView``.
The position reports (v1/driver/location, v1/osmand/<token>) are answered here through
Django and alike by the ingest process (``drivers.api.ingest_wsgi``).
"""

from django.urls import path

from driverapp.api import jobs, subscription, views

urlpatterns = [
    path("v1/driver/login", views.DriverLoginView.as_view(), name="driver-login-api"),
    path("v1/driver/logout", views.DriverLogoutView.as_view(), name="driver-logout-api"),
    path(
        "v1/driver/availability",
        views.DriverAvailabilityView.as_view(),
        name="driver-availability",
    ),
    path("v1/driver/location", views.DriverLocationView.as_view(), name="driver-location"),
    path(
        "v1/driver/tariff-submissions",
        views.DriverTariffSubmissionsView.as_view(),
        name="driver-tariff-submissions",
    ),
    path("v1/osmand/<str:token>", views.OsmandReportView.as_view(), name="driver-osmand"),
    path(
        "v1/driver/subscription",
        subscription.DriverSubscriptionView.as_view(),
        name="driver-subscription",
    ),
    path(
        "v1/driver/offers/<int:pk>/accept",
        jobs.DriverOfferAcceptView.as_view(),
        name="driver-offer-accept",
    ),
    path(
        "v1/driver/offers/<int:pk>/decline",
        jobs.DriverOfferDeclineView.as_view(),
        name="driver-offer-decline",
    ),
    path(
        "v1/driver/jobs/<str:ref>/status",
        jobs.DriverJobStatusView.as_view(),
        name="driver-job-status",
    ),
    path(
        "v1/driver/jobs/<str:ref>/settlement",
        jobs.DriverJobSettlementView.as_view(),
        name="driver-job-settlement",
    ),
    path("v1/driver/earnings", jobs.DriverEarningsView.as_view(), name="driver-earnings"),
]
