from django.urls import path, re_path

from partners.api.tariffs import TariffDetailView
from partners.api.views import (
    BookingStatusHookView,
    FlightStatusView,
    OperatorJobsView,
    PartnerJobDetailView,
    PartnerJobsView,
    SupplierHookView,
)

urlpatterns = [
    # POST is partner intake; GET is the driver app's feed (contract 6), delegated.
    path("v1/jobs", PartnerJobsView.as_view(), name="partner-jobs"),
    path("v1/jobs/<str:job_ref>", PartnerJobDetailView.as_view(), name="partner-job-detail"),
    path("v1/operator/jobs", OperatorJobsView.as_view(), name="operator-jobs"),
    path("v1/tariffs/<str:tariffId>", TariffDetailView.as_view(), name="tariff-detail"),
    path("v1/flights/status", FlightStatusView.as_view(), name="flight-status"),
    # booking-status first: "booking-status" must never be read as a supplier slug.
    path("hooks/booking-status", BookingStatusHookView.as_view(), name="hooks-booking-status"),
    # Non-greedy slug, so a supplier whose slug itself ends in "-booking" still parses.
    re_path(
        r"^hooks/(?P<supplier>[a-z0-9-]+?)-booking$",
        SupplierHookView.as_view(),
        name="hooks-supplier-booking",
    ),
]
