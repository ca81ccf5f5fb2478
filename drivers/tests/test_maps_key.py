"""Seed 8.5: a driver's own maps API key is stored encrypted, never shown again once saved,
and carried by the routing calls made for that driver's jobs (issue 15)."""

from __future__ import annotations

import re

import pytest
import responses
from django.db import connection
from responses import matchers

from bookings.tests.factories import BookingFactory
from core.testing.places import LEEDS, north_of
from dispatch.models import Offer
from dispatch.services import job_cards, offers
from drivers.models import Driver
from drivers.selectors import driver_maps_key
from drivers.services import driver_maps_key_set
from drivers.tests.factories import DriverFactory, driver_at

pytestmark = pytest.mark.django_db

KEY = "drv-own-maps-key-7f3a9c2e51d4"
ROUTER = "https://osrm.example.test"
ANY_ROUTE = re.compile(rf"{re.escape(ROUTER)}/route/v1/driving/[-0-9.]+,[-0-9.]+;[-0-9.]+,[-0-9.]+")
# OSRM 5.x answer for a 2.3 km drive (overview=false), hints shortened.
OSRM_BODY = {
    "code": "Ok",
    "routes": [
        {
            "legs": [
                {"steps": [], "summary": "", "weight": 402.7, "duration": 402.7, "distance": 2318.6}
            ],
            "weight_name": "routability",
            "weight": 402.7,
            "duration": 402.7,
            "distance": 2318.6,
        }
    ],
    "waypoints": [
        {
            "hint": "Yx8BgP___38AAAAA",
            "distance": 3.1,
            "name": "Clay Pit Lane",
            "location": [-1.5436, 53.8086],
        },
        {
            "hint": "dD0BgHQ9AYAKAAAA",
            "distance": 6.4,
            "name": "New Station Street",
            "location": [-1.5475, 53.7955],
        },
    ],
}


def raw_row(driver: Driver) -> str:
    """Every column of the driver's row as the database holds it."""
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT * FROM {Driver._meta.db_table} WHERE id = %s", [driver.pk])  # noqa: S608
        return repr(cursor.fetchone())


def test_the_key_is_stored_encrypted_and_read_back_only_for_routing():
    driver = DriverFactory()
    driver_maps_key_set(driver=driver, key=KEY)
    assert KEY not in raw_row(driver)
    assert KEY[-8:] not in raw_row(driver)
    driver.refresh_from_db()
    assert driver.maps_api_key_encrypted
    assert driver_maps_key(driver) == KEY
    driver_maps_key_set(driver=driver, key="")
    driver.refresh_from_db()
    assert driver_maps_key(driver) == ""


def test_a_key_encrypted_under_a_rotated_away_secret_counts_as_not_set(settings):
    driver = DriverFactory()
    driver_maps_key_set(driver=driver, key=KEY)
    settings.SECRET_KEY = "another-secret-key-" + "x" * 40
    driver.refresh_from_db()
    assert driver_maps_key(driver) == ""


def test_the_admin_takes_a_new_key_and_never_shows_it_again(admin_client):
    driver = DriverFactory()
    url = f"/admin/drivers/driver/{driver.pk}/change/"
    form = admin_client.get(url).context["adminform"].form
    data = {name: form[name].value() for name in form.fields if form[name].value() is not None}
    data = {k: ("on" if v is True else v) for k, v in data.items() if v is not False}
    data.update(
        {
            "new_maps_api_key": KEY,
            "vehicles-TOTAL_FORMS": "0",
            "vehicles-INITIAL_FORMS": "0",
            "corridor_routes-TOTAL_FORMS": "0",
            "corridor_routes-INITIAL_FORMS": "0",
        }
    )
    response = admin_client.post(url, data)
    assert response.status_code == 302, response.context["adminform"].form.errors
    driver.refresh_from_db()
    assert driver_maps_key(driver) == KEY
    assert KEY not in raw_row(driver)
    page = admin_client.get(url).content.decode()
    assert KEY not in page
    assert KEY[:-4] not in page
    assert "set, ending ...51d4" in page
    assert KEY not in admin_client.get("/admin/drivers/driver/").content.decode()


@responses.activate
def test_the_routing_call_for_the_drivers_job_carries_their_key(
    settings, django_capture_on_commit_callbacks
):
    settings.ROUTING_URL = ROUTER
    settings.ROUTING_KEY_PARAM = "api_key"
    settings.ROUTING_API_KEY = "network-key"
    settings.PRICING_ROUTER = "pricing.routing.OsrmRouter"
    driver = driver_at(north_of(LEEDS, 1))
    driver_maps_key_set(driver=driver, key=KEY)
    call = responses.get(
        ANY_ROUTE,
        json=OSRM_BODY,
        match=[matchers.query_param_matcher({"api_key": KEY}, strict_match=False)],
    )
    booking = BookingFactory(pickup_lat=LEEDS[0], pickup_lng=LEEDS[1])
    with django_capture_on_commit_callbacks(execute=True):
        offers.booking_dispatch_next(booking_id=booking.pk)
    offer = Offer.objects.select_related("booking", "driver").get(booking=booking)
    assert offer.driver_id == driver.pk

    body = job_cards.job_card_body(offer=offer)

    assert call.call_count >= 1
    assert "1.4 miles by road to pickup, about 7 min." in body
    assert KEY not in body


@responses.activate
def test_a_driver_without_a_key_is_routed_on_the_networks(settings):
    settings.ROUTING_URL = ROUTER
    settings.ROUTING_KEY_HEADER = "X-Api-Key"
    settings.ROUTING_API_KEY = "network-key"
    settings.PRICING_ROUTER = "pricing.routing.OsrmRouter"
    driver = driver_at(north_of(LEEDS, 1))
    responses.get(
        ANY_ROUTE, json=OSRM_BODY, match=[matchers.header_matcher({"X-Api-Key": "network-key"})]
    )
    from dispatch.services.pickup_routes import driver_pickup_route

    booking = BookingFactory(pickup_lat=LEEDS[0], pickup_lng=LEEDS[1])
    route = driver_pickup_route(driver=driver, booking=booking)
    assert route.source == "road"
    assert len(responses.calls) == 1
