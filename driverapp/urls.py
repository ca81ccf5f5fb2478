"""The driver pages, mounted once by config/urls.py under "driver/": sign-up, login, the
dashboard and its settings forms, the driver app's shell (``driver/app/``) and the
subscription pages (``billing.urls``, namespace "billing")."""

from django.contrib.auth import views as auth_views
from django.urls import include, path

from driverapp.views import driver_dashboard_page
from drivers import views

urlpatterns = [
    path("signup/", views.driver_signup_page, name="driver-signup"),
    path("signup/done/", views.driver_signup_done_page, name="driver-signup-done"),
    path("login/", views.DriverLoginPage.as_view(), name="driver-login"),
    path("logout/", auth_views.LogoutView.as_view(next_page="driver-login"), name="driver-logout"),
    path("dashboard/", driver_dashboard_page, name="driver-dashboard"),
    path("payment-link/", views.driver_payment_link_update, name="driver-payment-link"),
    path("maps-key/", views.driver_maps_key_update, name="driver-maps-key"),
    path("app/", views.driver_app_page, name="driver-app"),
    path("app/manifest.webmanifest", views.driver_app_manifest, name="driver-app-manifest"),
    path("app/sw.js", views.driver_app_service_worker, name="driver-app-sw"),
    path("billing/", include("billing.urls")),
]
