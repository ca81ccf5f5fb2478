"""Forms of the passenger pages."""

from __future__ import annotations

import datetime as dt

from django import forms

from bookings.page_errors import (
    PASSENGER_MESSAGES,
    passenger_field_messages,
    passenger_message,
)
from bookings.services import PassengerDetails
from core.errors import DomainError
from core.localtime import local_zone
from pricing.geocoding import address_hint
from pricing.vehicles import MAX_PASSENGERS, VEHICLE_CLASSES


class PageForm(forms.Form):
    """A form of the passenger pages: labels without Django's trailing colon."""

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("label_suffix", "")
        super().__init__(*args, **kwargs)

    def summary(self) -> list[str]:
        """What the alert on top of the form says: the refusal, or a pointer to the
        fields when only they are wrong."""
        if self.non_field_errors():
            return list(self.non_field_errors())
        return [PASSENGER_MESSAGES["invalid_input"]] if self.errors else []


class QuoteForm(PageForm):
    """The landing page's quote form (seed 2.1 through the website). The departure is
    typed in UK local time (a ``datetime-local`` input) and handed on aware; every rule
    (addresses, seats, meet and greet at airports, the pickup time) is the quote action's."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        # What the field takes is what the configured geocoder can place (contract 2.1.1).
        self.fields["pickup"].help_text = address_hint()

    # The quote action names fields as the v1 API does; errors come back under these.
    V1_NAMES = {
        "pickup": "pickup",
        "dropoff": "dropoff",
        "departAt": "depart_at",
        "passengers": "passengers",
        "vehicleType": "vehicle_type",
        "vehicle_type": "vehicle_type",
        "meetAndGreet": "meet_and_greet",
    }

    pickup = forms.CharField(
        max_length=300,
        label="Pickup",
        widget=forms.TextInput(
            attrs={"list": "place-suggestions-pickup", "autocomplete": "off", "data-suggest": ""}
        ),
    )
    dropoff = forms.CharField(
        max_length=300,
        label="Drop-off",
        widget=forms.TextInput(
            attrs={"list": "place-suggestions-dropoff", "autocomplete": "off", "data-suggest": ""}
        ),
    )
    depart_at = forms.DateTimeField(
        label="Pickup time (UK time)",
        required=False,
        input_formats=["%Y-%m-%dT%H:%M", "%Y-%m-%d %H:%M"],
        widget=forms.DateTimeInput(attrs={"type": "datetime-local"}, format="%Y-%m-%dT%H:%M"),
        help_text="Leave empty for as soon as possible.",
    )
    passengers = forms.IntegerField(min_value=1, max_value=MAX_PASSENGERS, initial=1)
    vehicle_type = forms.ChoiceField(
        label="Vehicle",
        required=False,
        choices=[("", "The smallest that seats us")]
        + [(vc.code, f"{vc.label} (up to {vc.seats})") for vc in VEHICLE_CLASSES],
    )
    meet_and_greet = forms.BooleanField(
        label="Meet and greet in arrivals (airport pickups only)", required=False
    )

    def clean_depart_at(self):
        """The typed wall-clock time is UK local time, whatever the server's zone."""
        moment = self.cleaned_data["depart_at"]
        if moment is None:
            return None
        return dt.datetime.combine(moment.date(), moment.time(), tzinfo=local_zone())

    def quote_arguments(self) -> dict:
        """The journey arguments of ``actions.quote_request``."""
        data = self.cleaned_data
        return {
            "pickup": data["pickup"],
            "dropoff": data["dropoff"],
            "depart_at": data["depart_at"],
            "passengers": data["passengers"],
            "vehicle_type": data["vehicle_type"] or None,
            "meet_and_greet": data["meet_and_greet"],
        }

    def add_domain_error(self, error: DomainError) -> None:
        """The passenger's sentence on top, the service's per-field words beside fields."""
        self.add_error(None, passenger_message(error))
        for field_name, messages in passenger_field_messages(error, self.V1_NAMES).items():
            for message in messages:
                self.add_error(field_name, message)


class QuoteBookingForm(PageForm):
    """The passenger's details on the website's booking page (seed 2.3). The rules (genuine
    email, a mobile, limits) are the booking action's; this form only reads the fields,
    named as the quote-redeeming form of the API names them."""

    passenger_name = forms.CharField(
        max_length=200, label="Your name", widget=forms.TextInput(attrs={"autocomplete": "name"})
    )
    passenger_email = forms.EmailField(
        label="Email",
        help_text="We send your confirmation and tracking link here.",
        widget=forms.EmailInput(attrs={"autocomplete": "email"}),
    )
    passenger_phone = forms.CharField(
        max_length=40,
        label="Mobile (WhatsApp)",
        help_text="Your driver calls or messages this number.",
        widget=forms.TextInput(attrs={"autocomplete": "tel", "type": "tel"}),
    )
    payment_method = forms.ChoiceField(
        choices=[("cash", "Cash"), ("card", "Card (driver's reader)")],
        label="Pay the driver by",
    )
    flight_number = forms.CharField(
        max_length=20,
        required=False,
        label="Flight number (airport pickups)",
        help_text="For example BA 1234: your pickup follows the flight's landing.",
        widget=forms.TextInput(attrs={"autocomplete": "off", "autocapitalize": "characters"}),
    )
    notes = forms.CharField(
        max_length=500,
        required=False,
        label="Notes for the driver",
        help_text="For example: 2 large suitcases, a child seat.",
        widget=forms.Textarea(attrs={"rows": 2}),
    )

    def booking_details(self, quote) -> dict:
        """The quote, passenger and payment arguments of ``actions.booking_place_from_quote``."""
        passenger = PassengerDetails(
            name=self.cleaned_data["passenger_name"],
            email=self.cleaned_data["passenger_email"],
            phone=self.cleaned_data["passenger_phone"],
        )
        return {
            "quote_id": quote.pk,
            "passenger": passenger,
            "payment_method": self.cleaned_data["payment_method"],
            "flight_number": self.cleaned_data["flight_number"],
            "notes": self.cleaned_data["notes"],
        }

    def add_domain_error(self, error: DomainError) -> None:
        """The passenger's sentence on top, the service's per-field words beside fields."""
        self.add_error(None, passenger_message(error))
        names = {name: name for name in self.fields} | {
            "flightNumber": "flight_number",
            "notes": "notes",
        }
        for field_name, messages in passenger_field_messages(error, names).items():
            for message in messages:
                self.add_error(field_name, message)
