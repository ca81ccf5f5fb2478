"""Driver app API under /api/public/ (contract 6).

GET v1/jobs (the driver feed) shares its path with partner intake (POST), so the partners
app registers "v1/jobs" and hands GET to drivers.api.views.DriverJobsFeedView.
"""

from django.urls import path

from drivers.api import views

urlpatterns = [
    path("v1/driver/login", views.DriverLoginView.as_view(), name="driver-login-api"),
    path("v1/driver/logout", views.DriverLogoutView.as_view(), name="driver-logout-api"),
    path(
        "v1/driver/offers/<int:pk>/accept",
        views.DriverOfferAcceptView.as_view(),
        name="driver-offer-accept",
    ),
    path(
        "v1/driver/offers/<int:pk>/decline",
        views.DriverOfferDeclineView.as_view(),
        name="driver-offer-decline",
    ),
    path(
        "v1/driver/jobs/<str:ref>/status",
        views.DriverJobStatusView.as_view(),
        name="driver-job-status",
    ),
    path(
        "v1/driver/jobs/<str:ref>/settlement",
        views.DriverJobSettlementView.as_view(),
        name="driver-job-settlement",
    ),
    path(
        "v1/driver/availability",
        views.DriverAvailabilityView.as_view(),
        name="driver-availability",
    ),
    path("v1/driver/location", views.DriverLocationView.as_view(), name="driver-location"),
    path("v1/driver/earnings", views.DriverEarningsView.as_view(), name="driver-earnings"),
    path("v1/osmand/<str:token>", views.OsmandReportView.as_view(), name="driver-osmand"),
]
