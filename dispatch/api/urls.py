"""Dispatch has no public API of its own: drivers answer offers through drivers.api and
fleets through the partners' booking-status hook."""

urlpatterns: list = []
