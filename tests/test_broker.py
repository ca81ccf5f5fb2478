"""The Redis broker transport publishes through one client per channel (config.broker)."""

from __future__ import annotations

import pytest
import redis
from django.conf import settings
from kombu import Connection
from kombu.transport import redis as redis_transport

needs_redis = pytest.mark.skipif(not settings.REDIS_URL, reason="needs Redis (set REDIS_URL)")

# Database 15: the test workers' caches use 1-14.
BROKER_DB = 15


@pytest.fixture
def broker_url():
    base = settings.REDIS_URL.rsplit("/", 1)[0]
    url = f"{base}/{BROKER_DB}"
    redis.Redis.from_url(url).flushdb()
    yield url
    redis.Redis.from_url(url).flushdb()


def publish_and_consume(url: str, transport: str, count: int) -> tuple[list[int], int]:
    """Publish ``count`` messages, read them back; returns them and the clients built by
    the 2nd to last publish."""
    created = []
    real_create = redis_transport.Channel._create_client

    def counting_create(self, *args, **kwargs):
        created.append(args)
        return real_create(self, *args, **kwargs)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(redis_transport.Channel, "_create_client", counting_create)
        with Connection(url, transport=transport) as connection:
            queue = connection.SimpleQueue("broker-test")
            queue.put({"n": 0})
            after_first = len(created)
            for number in range(1, count):
                queue.put({"n": number})
            built = len(created) - after_first
            received = []
            for _ in range(count):
                message = queue.get(timeout=2)
                received.append(message.payload["n"])
                message.ack()
            queue.close()
    return received, built


@needs_redis
def test_messages_published_through_one_client_arrive_in_order(broker_url):
    received, built = publish_and_consume(broker_url, "config.broker:Transport", 20)

    assert received == list(range(20))
    assert built == 0


@needs_redis
def test_kombus_own_transport_builds_a_client_per_publish(broker_url):
    # The cost config.broker removes, measured the same way (guards the test above).
    received, built = publish_and_consume(broker_url, "redis", 20)

    assert received == list(range(20))
    assert built >= 19  # at least one per publish


def test_only_redis_broker_urls_get_the_shared_client_transport(monkeypatch):
    import importlib

    from config import celery_settings

    for url, expected in [
        ("redis://127.0.0.1:6379/0", "config.broker:Transport"),
        ("memory://", None),
        ("amqp://guest@127.0.0.1//", None),
    ]:
        monkeypatch.setattr(settings, "CELERY_BROKER_URL", url)
        monkeypatch.delattr(celery_settings, "broker_transport", raising=False)
        module = importlib.reload(celery_settings)
        assert getattr(module, "broker_transport", None) == expected, url
        assert module.broker_url == url
    monkeypatch.undo()
    if not settings.CELERY_BROKER_URL.startswith("redis://"):
        del celery_settings.broker_transport
    importlib.reload(celery_settings)
