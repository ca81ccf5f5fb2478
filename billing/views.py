"""Server-rendered driver pages: subscription, weekly earnings, invoices (seed 8.4)."""

from __future__ import annotations

from django.contrib.auth.mixins import LoginRequiredMixin
from django.core.exceptions import ObjectDoesNotExist, PermissionDenied
from django.http import Http404
from django.views.generic import TemplateView

from billing.selectors import invoice_get_for_driver
from billing.services.overview import driver_subscription_overview


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
        overview = driver_subscription_overview(driver=self.driver)
        return super().get_context_data(
            driver=self.driver,
            overview=overview,
            subscription=overview.subscription,
            schedule=overview.schedule,
            invoices=overview.weeks,
            **kwargs,
        )


class DriverInvoiceView(DriverPageMixin, TemplateView):
    template_name = "billing/invoice_detail.html"

    def get_context_data(self, **kwargs):
        invoice = invoice_get_for_driver(driver=self.driver, invoice_id=kwargs["invoice_id"])
        if invoice is None:
            raise Http404("No such invoice.")
        return super().get_context_data(driver=self.driver, invoice=invoice, **kwargs)
