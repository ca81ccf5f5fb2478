"""Driver billing pages; included by config/urls.py under ``driver/billing/``."""

from django.urls import path

from billing import views

app_name = "billing"

urlpatterns = [
    path("", views.DriverSubscriptionView.as_view(), name="subscription"),
    path("invoices/<int:invoice_id>/", views.DriverInvoiceView.as_view(), name="invoice"),
    path(
        "invoices/<int:invoice_id>/print/",
        views.DriverInvoicePrintView.as_view(),
        name="invoice-print",
    ),
    path(
        "invoices/<int:invoice_id>/receipt/",
        views.DriverInvoicePrintView.as_view(),
        {"receipt": True},
        name="receipt-print",
    ),
    path(
        "invoices/<int:invoice_id>/pdf/", views.DriverInvoicePdfView.as_view(), name="invoice-pdf"
    ),
    path(
        "invoices/<int:invoice_id>/receipt.pdf",
        views.DriverInvoicePdfView.as_view(),
        {"receipt": True},
        name="receipt-pdf",
    ),
    path(
        "invoices/<int:invoice_id>/pay/",
        views.DriverInvoicePayNowView.as_view(),
        name="invoice-pay",
    ),
    path("pay/card/", views.DriverCardAddView.as_view(), name="card-add"),
    path("pay/direct-debit/", views.DriverDirectDebitAddView.as_view(), name="direct-debit-add"),
    path("pay/saved/", views.DriverPaymentMethodSavedView.as_view(), name="payment-method-saved"),
]
