"""Driver billing pages; included by config/urls.py under ``driver/billing/``."""

from django.urls import path

from billing import views

app_name = "billing"

urlpatterns = [
    path("", views.DriverSubscriptionView.as_view(), name="subscription"),
    path("invoices/<int:invoice_id>/", views.DriverInvoiceView.as_view(), name="invoice"),
]
