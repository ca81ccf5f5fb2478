"""The passenger's tracking page, included by config/urls.py at the site's root beside
the other passenger pages (bookings.urls): statusUrl and its live JSON."""

from django.urls import path

from dispatch import views

urlpatterns = [
    path(
        "booking/<str:reference>/<str:token>/",
        views.booking_status_page,
        name="booking-status-page",
    ),
    path(
        "booking/<str:reference>/<str:token>/live/",
        views.booking_status_json,
        name="booking-status-json",
    ),
]
