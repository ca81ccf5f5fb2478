"""Driver app API under /api/public/ (contract 6).

The feed, offers, job status, settlement and earnings are dispatch's use cases, registered
by dispatch.api.urls under the same prefix. GET v1/jobs (the driver feed) shares its path
with partner intake (POST), so the partners app registers "v1/jobs" and hands GET to
dispatch.api.views.DriverJobsFeedView.
"""

from django.urls import path

from drivers.api import views

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
]
