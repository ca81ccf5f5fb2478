"""The project's URLs with dispatch's pages first (config/urls.py includes them too)."""

from django.urls import include, path

from config.urls import urlpatterns as project_urlpatterns

urlpatterns = [
    path("dispatch/", include("dispatch.urls")),
    *project_urlpatterns,
]
