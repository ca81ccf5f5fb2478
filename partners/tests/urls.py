"""The project URLs plus the operator dashboard, for tests until config/urls.py includes it."""

from django.urls import include, path

from config.urls import handler400, handler403, handler404, handler500  # noqa: F401
from config.urls import urlpatterns as project_urlpatterns

urlpatterns = [path("operator/", include("partners.urls")), *project_urlpatterns]
