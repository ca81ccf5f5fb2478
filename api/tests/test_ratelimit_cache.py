"""The one-round-trip rate-limit counter client (api.ratelimit_cache), against Redis."""

import threading

import pytest
from django.conf import settings
from django.core.cache import caches
from django.test import RequestFactory
from django_ratelimit.core import get_usage

from api.ratelimit_cache import RateLimitCacheClient

pytestmark = pytest.mark.skipif(
    "ratelimit" not in settings.CACHES, reason="needs Redis (set REDIS_URL=redis://...)"
)


@pytest.fixture
def counters():
    cache = caches["ratelimit"]
    assert isinstance(cache.client, RateLimitCacheClient)
    return cache


def _count(group: str, *, increment: bool = True) -> dict:
    request = RequestFactory().post("/")
    return get_usage(
        request, group=group, key=lambda _g, _r: "caller", rate="3/h", increment=increment
    )


def test_each_request_counts_once_and_the_fourth_is_limited(counters):
    counts = [_count("probe") for _ in range(4)]
    assert [c["count"] for c in counts] == [1, 2, 3, 4]
    assert [c["should_limit"] for c in counts] == [False, False, False, True]


def test_peeking_without_increment_does_not_count(counters):
    _count("peek")
    assert _count("peek", increment=False)["count"] == 1
    assert _count("peek")["count"] == 2


def test_counter_keeps_its_expiry(counters):
    counters.add("window", 1, 60)
    counters.add("window", 1, 60)
    assert counters.incr("window") == 2
    assert 0 < counters.ttl("window") <= 60


def test_add_of_a_new_key_and_of_non_counters_behaves_as_add(counters):
    assert counters.add("fresh", 1, 60) is True
    assert counters.add("label", "text", 60) is True
    assert counters.add("label", "other", 60) is False
    assert counters.get("label") == "text"


def test_concurrent_requests_from_many_threads_are_all_counted(counters):
    def hammer():
        for _ in range(25):
            _count("burst")

    threads = [threading.Thread(target=hammer) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert _count("burst", increment=False)["count"] == 200
