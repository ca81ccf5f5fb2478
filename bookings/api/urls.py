from django.urls import path

from bookings.api import quotes, views

urlpatterns = [
    path("v1/quote", quotes.QuoteV1View.as_view(), name="quote-v1"),
    path("quotes/estimate", quotes.QuoteEstimateView.as_view(), name="quote-estimate"),
    path("bookings/create", views.AliasBookingCreateView.as_view(), name="alias-bookings-create"),
    path(
        "bookings/instant", views.AliasBookingInstantView.as_view(), name="alias-bookings-instant"
    ),
    path("v1/booking", views.V1BookingCreateView.as_view(), name="v1-booking"),
    path("v1/bookings", views.V1BookingsCreateView.as_view(), name="v1-bookings"),
    path("v1/booking/<str:ref>", views.V1BookingDetailView.as_view(), name="v1-booking-detail"),
    path("v1/passenger-verify", views.PassengerVerifyView.as_view(), name="v1-passenger-verify"),
]
