from django.urls import path

from bookings import views

urlpatterns = [
    path("", views.landing_page, name="landing-page"),
    path("places/suggest/", views.place_suggestions_json, name="place-suggestions"),
    path("book/", views.book_page, name="book-page"),
    path(
        "booking/<str:reference>/<str:token>/pay/",
        views.booking_pay_driver_page,
        name="booking-pay-driver-page",
    ),
    path(
        "booking/<str:reference>/<str:token>/cancel/",
        views.booking_cancel_page,
        name="booking-cancel-page",
    ),
    path(
        "passenger/confirm/<str:token>/",
        views.passenger_confirm_email,
        name="passenger-confirm-email",
    ),
]
