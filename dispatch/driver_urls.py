"""The driver's dashboard, included by config/urls.py under "driver/" beside the other
driver pages (drivers.urls): it shows dispatch's offers with the driver's jobs."""

from django.urls import path

from dispatch import views

urlpatterns = [
    path("dashboard/", views.driver_dashboard_page, name="driver-dashboard"),
]
