"""Back-office logins are throttled (django-axes); the API and the driver app are not."""

import pytest
from django.contrib.auth import get_user_model
from django.test import override_settings

pytestmark = [pytest.mark.django_db, pytest.mark.urls("config.urls")]


@pytest.fixture
def staff_user():
    return get_user_model().objects.create_superuser("boss", "boss@example.co.uk", "right-pw")


def admin_login(client, password: str, address: str = "198.51.100.1"):
    return client.post(
        "/admin/login/?next=/admin/",
        {"username": "boss", "password": password},
        REMOTE_ADDR=address,
    )


@override_settings(AXES_ENABLED=True, AXES_FAILURE_LIMIT=5)
def test_repeated_wrong_admin_passwords_lock_the_client_out(client, staff_user):
    """Issue 13: "30 wrong admin passwords in a row are all answered"."""
    statuses = [admin_login(client, f"guess-{n}").status_code for n in range(30)]

    assert statuses[:4] == [200] * 4  # the form again, with an error
    assert set(statuses[5:]) == {429}
    # Locked out means locked out: even the right password is refused from there.
    assert admin_login(client, "right-pw").status_code == 429
    # Another client is not affected.
    assert admin_login(client, "right-pw", address="198.51.100.2").status_code == 302


@override_settings(AXES_ENABLED=True, AXES_FAILURE_LIMIT=5)
def test_driver_app_logins_are_left_to_the_api_rate_limits(client, django_user_model):
    for _ in range(8):
        response = client.post(
            "/api/public/v1/driver/login",
            {"username": "nobody", "password": "wrong"},
            content_type="application/json",
        )
        assert response.status_code == 401
