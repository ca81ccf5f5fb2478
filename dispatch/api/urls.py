"""The driver app's API for dispatch's use cases under /api/public/ (contract 6), beside
drivers.api.urls: answering offers, moving and settling a job, the earnings. GET v1/jobs
(the feed) is registered by the partners app, which shares the path with intake (POST).
Fleets answer through the partners' booking-status hook."""

from django.urls import path

from dispatch.api import views

urlpatterns = [
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
    path("v1/driver/earnings", views.DriverEarningsView.as_view(), name="driver-earnings"),
]
