"""URLconf for billing tests until config/urls.py includes billing.urls."""

from django.contrib import admin
from django.urls import include, path

urlpatterns = [
    path("admin/", admin.site.urls),
    path("driver/billing/", include("billing.urls")),
]
