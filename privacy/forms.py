from django import forms

from privacy.models import DataRequestKind


class DataRequestForm(forms.Form):
    email = forms.EmailField(max_length=254, label="Your email address")
    kind = forms.ChoiceField(
        choices=DataRequestKind.choices,
        widget=forms.RadioSelect,
        label="What you ask for",
        initial=DataRequestKind.ACCESS,
    )


class DriverDataRequestForm(forms.Form):
    kind = forms.ChoiceField(choices=DataRequestKind.choices, widget=forms.RadioSelect)
