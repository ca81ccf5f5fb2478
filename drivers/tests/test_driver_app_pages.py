"""The driver app's page, manifest and service worker (issue 23), and its earnings read."""

from __future__ import annotations

import re
from decimal import Decimal
from pathlib import Path

import pytest
from django.contrib.staticfiles import finders

from bookings.tests.factories import BookingFactory, PaymentRecordFactory
from core.testing.places import LEEDS
from drivers.tests.factories import UserFactory, driver_at, driver_client

pytestmark = pytest.mark.django_db


def test_the_app_page_links_its_manifest_script_and_the_api(client):
    page = client.get("/driver/app/")
    assert page.status_code == 200
    html = page.content.decode()
    assert 'rel="manifest" href="/driver/app/manifest.webmanifest"' in html
    assert 'data-sw="/driver/app/sw.js"' in html
    assert 'data-login="/api/public/v1/driver/login"' in html
    assert 'data-earnings="/api/public/v1/driver/earnings"' in html
    assert re.search(r'(src|href)="(https?:)?//', html) is None  # no CDN: all served here


def test_the_manifest_makes_the_app_installable(client):
    response = client.get("/driver/app/manifest.webmanifest")
    assert response["Content-Type"] == "application/manifest+json"
    manifest = response.json()
    assert manifest["start_url"] == manifest["scope"] == "/driver/app/"
    assert manifest["display"] == "standalone"
    sizes = {icon["sizes"] for icon in manifest["icons"]}
    assert {"192x192", "512x512"} <= sizes
    for icon in manifest["icons"]:
        name = icon["src"].removeprefix("/static/")
        assert Path(finders.find(name)).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_the_service_worker_keeps_the_app_files_under_a_versioned_cache(client):
    response = client.get("/driver/app/sw.js")
    assert response["Content-Type"].startswith("text/javascript")
    assert response["Cache-Control"] == "no-cache"
    script = response.content.decode()
    assert '"/driver/app/"' in script
    assert '"/static/driver-app/app.js"' in script
    assert "/api/" not in script.split("const SHELL", 1)[1].split(";", 1)[0]  # API never cached
    version = client.get("/driver/app/").content.decode().split('data-version="')[1][:12]
    assert f'const CACHE = "driver-app-{version}";' in script


def test_earnings_are_what_was_recorded_for_the_driver(django_assert_max_num_queries):
    driver = driver_at(LEEDS, user=UserFactory())
    booking = BookingFactory(driver=driver, status="completed", fare=Decimal("38.20"))
    PaymentRecordFactory(booking=booking, driver=driver, amount=Decimal("30.00"))
    client = driver_client(driver)
    with django_assert_max_num_queries(12):
        response = client.get("/api/public/v1/driver/earnings")
    assert response.status_code == 200
    body = response.json()
    assert body["today"]["earningsGBP"] == 30.0
    assert body["thisWeek"]["earningsGBP"] == 30.0
    assert len(body["weeks"]) == 8
    assert body["weeks"][0]["earningsGBP"] == 30.0


def test_earnings_need_a_drivers_token(api_client):
    assert api_client.get("/api/public/v1/driver/earnings").status_code == 401
