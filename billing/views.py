"""Server-rendered driver pages: subscription, weekly earnings, invoices (seed 8.4),
ways to pay and printable invoices and receipts (issue 36)."""

from __future__ import annotations

import stripe
from django.conf import settings
from django.contrib import messages
from django.contrib.auth.mixins import LoginRequiredMixin
from django.core.exceptions import ObjectDoesNotExist, PermissionDenied
from django.http import Http404, HttpResponse
from django.shortcuts import redirect
from django.urls import reverse
from django.views import View
from django.views.generic import TemplateView

from billing.documents import invoice_document, invoice_pdf
from billing.provider import provider_configured, stripe_js_url
from billing.selectors import invoice_get_for_driver
from billing.services import payment_methods, payments
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


def _provider_collects() -> bool:
    return (
        settings.BILLING_COLLECTION_BACKEND.endswith("StripeCollection") and provider_configured()
    )


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
            provider_collects=_provider_collects(),
            payment_methods=self.driver.payment_methods.filter(active=True),
            direct_debit="bacs_debit" in settings.STRIPE_PAYMENT_METHOD_TYPES,
            retry_days=settings.BILLING_PAYMENT_RETRY_DAYS,
            unpaid_weeks_before_pause=settings.BILLING_UNPAID_WEEKS_BEFORE_PAUSE,
            **kwargs,
        )


class DriverInvoiceView(DriverPageMixin, TemplateView):
    template_name = "billing/invoice_detail.html"

    def get_context_data(self, **kwargs):
        invoice = invoice_get_for_driver(driver=self.driver, invoice_id=kwargs["invoice_id"])
        if invoice is None:
            raise Http404("No such invoice.")
        return super().get_context_data(
            driver=self.driver, invoice=invoice, document=invoice_document(invoice), **kwargs
        )


class DriverInvoicePrintView(DriverInvoiceView):
    """The invoice, or the receipt of a paid one, as a page that prints on A4."""

    template_name = "billing/invoice_print.html"

    def get_context_data(self, **kwargs):
        context = super().get_context_data(**kwargs)
        if kwargs.get("receipt") and not context["document"].is_receipt:
            raise Http404("No receipt: this week is not paid.")
        context["receipt"] = bool(kwargs.get("receipt"))
        return context


class DriverInvoicePdfView(DriverPageMixin, View):
    def get(self, request, invoice_id: int, receipt: bool = False):
        invoice = invoice_get_for_driver(driver=self.driver, invoice_id=invoice_id)
        if invoice is None or not invoice.number:
            raise Http404("No such invoice.")
        document = invoice_document(invoice)
        if receipt and not document.is_receipt:
            raise Http404("No receipt: this week is not paid.")
        name = f"{'receipt' if receipt else 'invoice'}-{invoice.display_number}.pdf"
        response = HttpResponse(
            invoice_pdf(document, receipt=receipt), content_type="application/pdf"
        )
        response["Content-Disposition"] = f'inline; filename="{name}"'
        return response


class DriverInvoicePayNowView(DriverPageMixin, View):
    """Pay a failed week now with the current way of paying."""

    def post(self, request, invoice_id: int):
        try:
            outcome = payments.invoice_pay_now(driver=self.driver, invoice_id=invoice_id)
        except stripe.StripeError:
            messages.error(request, "Stripe cannot be reached just now; please try again soon.")
            return redirect("billing:invoice", invoice_id=invoice_id)
        if outcome is None:
            raise Http404("No failed payment to retry.")
        if outcome.status == "paid":
            messages.success(request, "Paid. Thank you.")
        else:
            messages.error(request, "The payment did not go through; try another way to pay.")
        return redirect("billing:invoice", invoice_id=invoice_id)


class DriverCardAddView(DriverPageMixin, TemplateView):
    """A card typed into Stripe's own fields (Stripe.js, a SetupIntent): the number goes
    to Stripe, never here."""

    template_name = "billing/card_add.html"

    def get(self, request, *args, **kwargs):
        if not _provider_collects():
            raise Http404("Payment is collected by the network's staff.")
        try:
            self.client_secret = payment_methods.card_setup_start(driver=self.driver)
        except stripe.StripeError:
            response = HttpResponse(
                "Stripe cannot be reached just now; please try again in a minute.",
                status=503,
                content_type="text/plain",
            )
            response["Retry-After"] = "60"
            return response
        return super().get(request, *args, **kwargs)

    def get_context_data(self, **kwargs):
        return super().get_context_data(
            client_secret=self.client_secret,
            publishable_key=settings.STRIPE_PUBLISHABLE_KEY,
            stripe_js=stripe_js_url(),
            return_url=self.request.build_absolute_uri(reverse("billing:payment-method-saved")),
            **kwargs,
        )


class DriverDirectDebitAddView(DriverPageMixin, View):
    """Stripe Checkout in setup mode: Stripe's hosted pages take the bank details and
    show the Bacs mandate."""

    def post(self, request):
        if not _provider_collects():
            raise Http404("Payment is collected by the network's staff.")
        back = request.build_absolute_uri(reverse("billing:subscription"))
        saved = request.build_absolute_uri(reverse("billing:payment-method-saved"))
        try:
            url = payment_methods.direct_debit_setup_start(
                driver=self.driver, success_url=saved, cancel_url=back
            )
        except stripe.StripeError:
            messages.error(request, "Direct Debit could not be started; try again later.")
            return redirect("billing:subscription")
        return redirect(url)


class DriverPaymentMethodSavedView(DriverPageMixin, View):
    """Where Stripe sends the driver back: record what was saved, then the subscription."""

    def get(self, request):
        try:
            method = payment_methods.setup_complete(
                driver=self.driver,
                setup_intent_id=request.GET.get("setup_intent", "")[:100],
                session_id=request.GET.get("session_id", "")[:200],
            )
        except (LookupError, stripe.StripeError):
            messages.error(request, "The way to pay was not saved. Please try again.")
        else:
            messages.success(request, f"Saved: {method.label}.")
        return redirect("billing:subscription")
