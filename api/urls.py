from django.urls import include, path
from drf_spectacular.views import SpectacularRedocView, SpectacularSwaggerView

from api.views import OpenAPIJsonV1View, OpenAPIJsonView

urlpatterns = [
    path("openapi.json", OpenAPIJsonView.as_view(), name="openapi"),
    path("v1/openapi.json", OpenAPIJsonV1View.as_view(), name="openapi-v1"),
    path("docs/", SpectacularSwaggerView.as_view(url_name="openapi"), name="api-docs"),
    path("redoc/", SpectacularRedocView.as_view(url_name="openapi"), name="api-redoc"),
    path("", include("bookings.api.urls")),
    path("", include("pricing.api.urls")),
    path("", include("partners.api.urls")),
    path("", include("driverapp.api.urls")),
]
