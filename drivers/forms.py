"""The driver sign-up form (seed section 3: sign-up is the first stage)."""

from __future__ import annotations

import phonenumbers
from django import forms
from django.contrib.auth import get_user_model, password_validation
from django.utils import timezone

from drivers.models import NetworkTier, Vehicle
from drivers.services import DriverApplication
from pricing.geocoding import geocoder_get
from pricing.vehicles import MAX_PASSENGERS, VehicleType


class DriverSignupForm(forms.Form):
    name = forms.CharField(max_length=200)
    email = forms.EmailField()
    phone = forms.CharField(
        max_length=30, help_text="Mobile; job cards come here by SMS and WhatsApp."
    )
    password = forms.CharField(widget=forms.PasswordInput, strip=False)

    licensing_authority = forms.CharField(
        max_length=200, help_text="The council that licensed you."
    )
    licence_number = forms.CharField(max_length=50)
    licence_expiry = forms.DateField(widget=forms.DateInput(attrs={"type": "date"}))

    base_city = forms.CharField(max_length=100, help_text="Town or city you work from.")
    operating_radius_km = forms.FloatField(min_value=1, max_value=50, initial=25)
    network = forms.ChoiceField(choices=NetworkTier.choices, initial=NetworkTier.LOCAL)

    vehicle_make = forms.CharField(max_length=50)
    vehicle_model = forms.CharField(max_length=50)
    vehicle_colour = forms.CharField(max_length=30)
    vehicle_registration = forms.CharField(max_length=12)
    vehicle_class = forms.ChoiceField(choices=VehicleType.choices, initial=VehicleType.SALOON)
    vehicle_seats = forms.IntegerField(min_value=1, max_value=MAX_PASSENGERS, initial=4)
    vehicle_wheelchair_accessible = forms.BooleanField(required=False)
    vehicle_licensing_authority = forms.CharField(max_length=200)
    vehicle_plate_number = forms.CharField(max_length=50, required=False)
    vehicle_plate_expiry = forms.DateField(widget=forms.DateInput(attrs={"type": "date"}))

    def clean_email(self) -> str:
        email = self.cleaned_data["email"].lower()
        if get_user_model().objects.filter(username=email).exists():
            raise forms.ValidationError("An account with this email already exists.")
        return email

    def clean_phone(self) -> str:
        try:
            number = phonenumbers.parse(self.cleaned_data["phone"], "GB")
        except phonenumbers.NumberParseException:
            raise forms.ValidationError("Enter a valid mobile number.") from None
        if not phonenumbers.is_valid_number(number):
            raise forms.ValidationError("Enter a valid mobile number.")
        return phonenumbers.format_number(number, phonenumbers.PhoneNumberFormat.E164)

    def clean_password(self) -> str:
        password = self.cleaned_data["password"]
        password_validation.validate_password(password)
        return password

    def clean_licence_expiry(self):
        expiry = self.cleaned_data["licence_expiry"]
        if expiry < timezone.localdate():
            raise forms.ValidationError("This licence has expired.")
        return expiry

    def clean_vehicle_plate_expiry(self):
        expiry = self.cleaned_data["vehicle_plate_expiry"]
        if expiry < timezone.localdate():
            raise forms.ValidationError("This vehicle licence (plate) has expired.")
        return expiry

    def clean_vehicle_registration(self) -> str:
        registration = self.cleaned_data["vehicle_registration"].upper().strip()
        if Vehicle.objects.filter(registration=registration).exists():
            raise forms.ValidationError("This vehicle is already registered.")
        return registration

    def clean_base_city(self) -> str:
        place = geocoder_get().geocode(self.cleaned_data["base_city"])
        if place is None or not place.in_uk:
            raise forms.ValidationError("We could not find this UK town or city.")
        self.base_place = place
        return place.label

    def application(self) -> DriverApplication:
        data = self.cleaned_data
        return DriverApplication(
            username=data["email"],
            password=data["password"],
            name=data["name"],
            phone=data["phone"],
            email=data["email"],
            licensing_authority=data["licensing_authority"],
            licence_number=data["licence_number"],
            licence_expiry=data["licence_expiry"],
            base_city=data["base_city"],
            base_lat=self.base_place.lat,
            base_lng=self.base_place.lng,
            operating_radius_km=data["operating_radius_km"],
            network=data["network"],
            vehicle_make=data["vehicle_make"],
            vehicle_model=data["vehicle_model"],
            vehicle_colour=data["vehicle_colour"],
            vehicle_registration=data["vehicle_registration"],
            vehicle_class=data["vehicle_class"],
            vehicle_seats=data["vehicle_seats"],
            vehicle_wheelchair_accessible=data["vehicle_wheelchair_accessible"],
            vehicle_licensing_authority=data["vehicle_licensing_authority"],
            vehicle_plate_number=data["vehicle_plate_number"],
            vehicle_plate_expiry=data["vehicle_plate_expiry"],
        )
