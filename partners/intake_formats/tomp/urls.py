"""TOMP-API 1.6.1 paths, mounted at /api/tomp/ (config/urls.py)."""

from django.urls import path

from partners.intake_formats.tomp import views

urlpatterns = [
    path("openapi.yaml", views.TompSpecView.as_view(), name="tomp-spec"),
    path("plannings", views.TompPlanningsView.as_view(), name="tomp-plannings"),
    path("bookings", views.TompBookingsView.as_view(), name="tomp-bookings"),
    path("bookings/<str:booking_id>", views.TompBookingView.as_view(), name="tomp-booking"),
    path(
        "bookings/<str:booking_id>/events",
        views.TompBookingEventsView.as_view(),
        name="tomp-booking-events",
    ),
    path("legs/<str:leg_id>", views.TompLegView.as_view(), name="tomp-leg"),
    path("support/", views.TompSupportView.as_view(), name="tomp-support"),
    path(
        "support/<str:booking_id>/status",
        views.TompSupportStatusView.as_view(),
        name="tomp-support-status",
    ),
    path("operator/meta", views.TompMetaView.as_view(), name="tomp-meta"),
]
