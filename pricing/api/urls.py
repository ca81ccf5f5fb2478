# Relative to /api/public/ (api/urls.py).
from django.urls import path

from pricing.api import views

urlpatterns = [
    path("v1/quote", views.QuoteV1View.as_view(), name="quote-v1"),
    path("quotes/estimate", views.QuoteEstimateView.as_view(), name="quote-estimate"),
]
