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


def test_a_walk_leaves_no_page_of_the_service_open(request, live_server):
    """Runs after the walk above (file order): a page left open, the tracking page or the
    driver app, would keep polling the live server while later tests run. The session's
    Chromium as the walk left it (not through ``browser``, which opens a page first)."""
    session = request.getfixturevalue("_browser_session")
    assert not session.current_url.startswith(live_server.url)
