"""Server-rendered driver pages: subscription, weekly earnings, invoices (seed 8.4)."""

from __future__ import annotations

from django.contrib.auth.mixins import LoginRequiredMixin
from django.core.exceptions import ObjectDoesNotExist, PermissionDenied
from django.http import Http404
from django.views.generic import TemplateView

from billing.fees import fee_schedule_current
from billing.models import InvoiceStatus
from billing.selectors import invoice_get_for_driver, invoice_list_for_driver
from billing.services.subscriptions import subscription_get_or_create_for_driver


class DriverPageMixin(LoginRequiredMixin):
    """Only a logged-in driver sees these pages, and only their own billing."""

    def dispatch(self, request, *args, **kwargs):
        if request.user.is_authenticated:
            try:
                self.driver = request.user.driver
            except ObjectDoesNotExist:
                raise PermissionDenied("Billing pages are for drivers.") from None
        return super().dispatch(request, *args, **kwargs)


class DriverSubscriptionView(DriverPageMixin, TemplateView):
    template_name = "billing/subscription.html"

    def get_context_data(self, **kwargs):
        invoices = list(invoice_list_for_driver(driver=self.driver))
        return super().get_context_data(
            driver=self.driver,
            subscription=subscription_get_or_create_for_driver(driver=self.driver),
            schedule=fee_schedule_current(),
            invoices=invoices,
            paid_weeks=sum(1 for inv in invoices if inv.status == InvoiceStatus.PAID),
            outstanding=[inv for inv in invoices if inv.status in _OUTSTANDING],
            **kwargs,
        )


_OUTSTANDING = (InvoiceStatus.ISSUED, InvoiceStatus.DUE)


class DriverInvoiceView(DriverPageMixin, TemplateView):
    template_name = "billing/invoice_detail.html"

    def get_context_data(self, **kwargs):
        invoice = invoice_get_for_driver(driver=self.driver, invoice_id=kwargs["invoice_id"])
        if invoice is None:
            raise Http404("No such invoice.")
        return super().get_context_data(driver=self.driver, invoice=invoice, **kwargs)
