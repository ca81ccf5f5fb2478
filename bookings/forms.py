"""Forms of the passenger pages."""

from __future__ import annotations

from django import forms

from bookings.services import PassengerDetails
from core.errors import DomainError


class QuoteBookingForm(forms.Form):
    """The passenger's details on the website's booking page (seed 2.3). The rules (genuine
    email, a mobile, limits) are the booking action's; this form only reads the fields,
    named as the quote-redeeming form of the API names them."""

    passenger_name = forms.CharField(max_length=200, label="Your name")
    passenger_email = forms.EmailField(label="Email")
    passenger_phone = forms.CharField(max_length=40, label="Mobile (WhatsApp)")
    payment_method = forms.ChoiceField(
        choices=[("cash", "Cash"), ("card", "Card (driver's reader)")],
        label="Pay the driver by",
    )

    def booking_details(self, quote) -> dict:
        """The quote, passenger and payment arguments of ``actions.booking_place_from_quote``."""
        passenger = PassengerDetails(
            name=self.cleaned_data["passenger_name"],
            email=self.cleaned_data["passenger_email"],
            phone=self.cleaned_data["passenger_phone"],
        )
        payment_method = self.cleaned_data["payment_method"]
        return {"quote_id": quote.pk, "passenger": passenger, "payment_method": payment_method}

    def add_domain_error(self, error: DomainError) -> None:
        """Show a refusal of the booking action beside the field it names, else on top."""
        named = {k: v for k, v in (error.errors or {}).items() if k in self.fields}
        for field_name, messages in named.items():
            for message in messages:
                self.add_error(field_name, message)
        if not named:
            self.add_error(None, error.detail or error.code)
