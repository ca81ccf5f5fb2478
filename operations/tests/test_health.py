"""/healthz and /readyz (contract 10.1)."""

from __future__ import annotations

import pytest
from celery import current_app
from django.test import override_settings

from core.testing.network import closed_port


def test_healthz_answers_without_touching_the_database(client):
    # No django_db mark: pytest-django fails any query this test makes.
    response = client.get("/healthz")

    assert response.status_code == 200
    assert response.json() == {"status": "ok"}


@pytest.fixture
def cache_of_its_own(settings):
    """The suite's Redis databases are flushed between other tests (conftest), which can
    empty the probe key mid-check: the readiness probe gets a database of its own."""
    if settings.REDIS_URL:
        settings.CACHES = {
            "default": {"BACKEND": "django_redis.cache.RedisCache", "LOCATION": settings.REDIS_URL}
        }


@pytest.mark.django_db
@pytest.mark.usefixtures("cache_of_its_own")
def test_readyz_names_each_check_when_all_answer(client):
    response = client.get("/readyz")

    assert response.status_code == 200
    assert response.json() == {"database": "ok", "cache": "ok", "broker": "ok"}


@pytest.mark.django_db
def test_readyz_is_503_naming_the_cache_and_broker_that_do_not_answer(client, monkeypatch):
    nobody = f"redis://127.0.0.1:{closed_port()}/0"
    monkeypatch.setattr(current_app.conf, "broker_url", nobody)
    unreachable_cache = {
        "default": {
            "BACKEND": "django_redis.cache.RedisCache",
            "LOCATION": nobody,
            "OPTIONS": {"SOCKET_CONNECT_TIMEOUT": 0.5, "SOCKET_TIMEOUT": 0.5},
        }
    }
    with override_settings(CACHES=unreachable_cache):
        response = client.get("/readyz")

    assert response.status_code == 503
    assert response["Retry-After"].isdigit()
    body = response.json()
    assert body["database"] == "ok"
    assert body["cache"].startswith("unavailable")
    assert body["broker"].startswith("unavailable")
