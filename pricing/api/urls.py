from django.urls import path

from pricing.api import views

urlpatterns = [
    path("v1/places", views.PlacesView.as_view(), name="places-v1"),
]
