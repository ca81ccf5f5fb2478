"""Dispatch pages, included by config/urls.py under "dispatch/"."""

from django.urls import path

from dispatch import views

urlpatterns = [
    path("offers/<str:token>/", views.offer_link_page, name="dispatch-offer-link"),
]
