"""The project's URLs plus the driver and dispatch pages (as config/urls.py will include them)."""

from django.urls import include, path

from config.urls import urlpatterns as project_urlpatterns

urlpatterns = [
    path("driver/", include("drivers.urls")),
    path("driver/", include("dispatch.driver_urls")),
    path("dispatch/", include("dispatch.urls")),
    *project_urlpatterns,
]
