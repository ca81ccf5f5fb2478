"""The walk harness itself: Debian's Chromium renders a page of this service."""

from django.urls import reverse
from selenium.webdriver.common.by import By


def test_chromium_renders_the_driver_login_page(browser, live_server, screenshot):
    browser.get(live_server.url + reverse("driver-login"))

    form_fields = {
        field.get_attribute("name")
        for field in browser.find_elements(By.CSS_SELECTOR, "form input")
    }
    assert {"username", "password", "csrfmiddlewaretoken"} <= form_fields
    assert screenshot("harness-driver-login").stat().st_size > 1000
