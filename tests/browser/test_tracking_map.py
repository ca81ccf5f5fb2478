"""The tracking page's sketch map at 390 px on a 1-mile trip (issue 34): the labels of
the pickup, the drop-off and the driver never overlap."""

from __future__ import annotations

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from bookings.services import booking_status_url
from bookings.tests.factories import BookingFactory
from core.testing.places import LEEDS, north_of
from dispatch.services import offers
from drivers.tests.factories import driver_at, position_report
from tests.browser.test_walks import DESKTOP, PHONE

pytestmark = pytest.mark.django_db(transaction=True)

BOXES = """
return Array.from(document.querySelectorAll('#map svg text')).map(function (t) {
  var b = t.getBoundingClientRect();
  return [t.textContent, b.left, b.top, b.right, b.bottom];
});
"""


def test_the_labels_of_a_one_mile_trip_do_not_overlap_on_a_phone(browser, live_server):
    dropoff = north_of(LEEDS, 1.6)  # a mile
    driver = driver_at(north_of(LEEDS, 1.5), name="Asha Khan")  # beside the drop-off
    booking = BookingFactory(dropoff_lat=dropoff[0], dropoff_lng=dropoff[1])
    offer = offers.booking_dispatch_next(booking_id=booking.pk)
    offers.offer_accept(offer_id=offer.pk, driver=driver)
    position_report(driver, lat=north_of(LEEDS, 1.5)[0], lng=LEEDS[1])
    browser.set_window_size(*PHONE)
    try:
        browser.get(live_server.url + "/" + booking_status_url(booking).split("/", 3)[3])
        WebDriverWait(browser, 10).until(
            lambda b: len(b.find_elements(By.CSS_SELECTOR, "#map svg text")) == 3
        )
        boxes = browser.execute_script(BOXES)
    finally:
        browser.set_window_size(*DESKTOP)
    assert sorted(b[0] for b in boxes) == ["Drop-off", "Pickup", "Your driver"]
    for i, a in enumerate(boxes):
        for b in boxes[i + 1 :]:
            apart = a[3] <= b[1] or b[3] <= a[1] or a[4] <= b[2] or b[4] <= a[2]
            assert apart, f"{a[0]!r} overlaps {b[0]!r}: {a[1:]} / {b[1:]}"
