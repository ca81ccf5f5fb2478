"""Driver sign-up page and the admin's approval action (seed section 3 stages)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model
from django.utils import timezone

from bookings.tests.factories import BookingFactory
from dispatch.services import matching
from dispatch.services.matching import JobRequirements
from drivers.models import Driver, DriverStage
from drivers.tests.factories import DriverFactory, VehicleFactory, signup_form

pytestmark = pytest.mark.django_db


def test_signup_creates_a_driver_awaiting_approval(client):
    response = client.post("/driver/signup/", signup_form())
    assert response.status_code == 302, response.content.decode()[:2000]
    driver = Driver.objects.get(email="asha.khan@example.co.uk")
    assert driver.stage == DriverStage.SIGNED_UP
    assert driver.approved_at is None
    assert driver.phone == "+447911123456"
    assert driver.base_lat == pytest.approx(53.8, abs=0.1)
    assert driver.vehicles.get().registration == "AB12 CDE"
    assert driver.user.check_password("a-long-unusual-passphrase-42")


def test_signup_refuses_an_expired_licence(client):
    yesterday = (timezone.localdate() - timedelta(days=1)).isoformat()
    response = client.post("/driver/signup/", signup_form(licence_expiry=yesterday))
    assert response.status_code == 200
    assert "This licence has expired." in response.content.decode()
    assert not Driver.objects.exists()


def test_signed_up_driver_is_never_offered_a_job():
    driver = DriverFactory(stage=DriverStage.SIGNED_UP, approved_at=None)
    VehicleFactory(driver=driver)
    job = JobRequirements.for_booking(BookingFactory())
    assert matching.candidate_next(tier=1, job=job, now=timezone.now()) is None


@pytest.fixture
def admin_client(client):
    admin = get_user_model().objects.create_superuser("desk", "desk@example.co.uk", "pw")
    client.force_login(admin)
    return client


def test_admin_approve_action_starts_the_trial(admin_client):
    driver = DriverFactory(stage=DriverStage.SIGNED_UP, approved_at=None)
    response = admin_client.post(
        "/admin/drivers/driver/", {"action": "approve_drivers", "_selected_action": [driver.pk]}
    )
    assert response.status_code == 302
    driver.refresh_from_db()
    assert driver.stage == DriverStage.TRIAL
    assert driver.approved_at is not None


def test_admin_driver_list_filters_and_search(admin_client):
    driver = DriverFactory(name="Findable Person")
    VehicleFactory(driver=driver, registration="FIND 123")
    response = admin_client.get("/admin/drivers/driver/", {"q": "FIND 123", "stage": "trial"})
    assert response.status_code == 200
    assert "Findable Person" in response.content.decode()
