from django.urls import path

from privacy import views

urlpatterns = [
    path("privacy/", views.privacy_notice, name="privacy-notice"),
    path("privacy/requests/sent/", views.privacy_request_sent, name="privacy-request-sent"),
    path("privacy/requests/<str:token>/", views.privacy_request, name="privacy-request"),
    path(
        "privacy/requests/<str:token>/data.json",
        views.privacy_request_data,
        name="privacy-request-data",
    ),
    path("driver/privacy/", views.driver_privacy, name="driver-privacy"),
]
