"""The one-round-trip rate-limit counter client (guards.ratelimit_cache), against Redis."""

import pytest
from django.conf import settings
from django.core.cache import caches
from django.test import RequestFactory
from django_ratelimit.core import get_usage

from core.testing.concurrency import race
from guards.ratelimit_cache import RateLimitCacheClient, counting_in_blocks
from guards.ratelimits import counting_block

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

    race(*[hammer] * 8)
    assert _count("burst", increment=False)["count"] == 200


def _counted(group: str, rate: str) -> dict:
    """Count one request the way limit_enforce does: in the blocks the rate allows."""
    request = RequestFactory().post("/")
    with counting_in_blocks(counting_block(rate)):
        return get_usage(
            request, group=group, key=lambda _g, _r: "caller", rate=rate, increment=True
        )


def _count_peek(group: str, rate: str) -> int:
    """What Redis holds for the counter; peeking does not count."""
    request = RequestFactory().post("/")
    usage = get_usage(request, group=group, key=lambda _g, _r: "caller", rate=rate)
    return usage["count"]


@pytest.mark.parametrize(
    ("rate", "block"),
    [("30/h", 1), ("1999/h", 1), ("2000/m", 2), ("45000/d", 45), ("100000000/h", 100)],
)
def test_a_block_is_a_thousandth_of_the_limit_up_to_the_setting(rate, block):
    assert counting_block(rate) == block


def test_blocks_can_be_switched_off(settings):
    settings.RATELIMIT_COUNT_BLOCK_MAX = 1
    assert counting_block("100000000/h") == 1


def test_a_block_is_reserved_once_and_handed_out_in_order(counters):
    counts = [_counted("blocks", "10000/h")["count"] for _ in range(25)]
    assert counts == list(range(1, 26))
    # Three blocks of ten reserved in Redis, not 25 round trips of one.
    assert _count_peek("blocks", "10000/h") == 30


def test_exact_counting_below_two_thousand(counters):
    for _ in range(7):
        _counted("exact", "1999/h")
    assert _count_peek("exact", "1999/h") == 7


def test_threads_never_share_a_count_and_never_pass_the_limit(counters):
    # 8 threads, 500 tries each, at 3000/h in blocks of 3: every count number is handed
    # out once, so no more than 3000 are admitted, and at most 8 x 2 reserved go unused.
    def hammer():
        return [u["count"] for u in (_counted("race", "3000/h") for _ in range(500))]

    admitted = [count for counts in race(*[hammer] * 8) for count in counts if count <= 3000]
    assert len(admitted) == len(set(admitted))
    assert 3000 - 8 * 2 <= len(admitted) <= 3000


def test_a_lease_is_not_used_after_its_counter_expired(counters, monkeypatch):
    import guards.ratelimit_cache as module

    now = [1000.0]
    monkeypatch.setattr(module, "monotonic", lambda: now[0])
    with counting_in_blocks(5):
        assert counters.add("expiring", 1, 60) is True  # counts 1-5 reserved
        assert counters.add("expiring", 1, 60) is False
        assert counters.incr("expiring") == 2
        counters.delete("expiring")
        now[0] += 61
        assert counters.add("expiring", 1, 60) is True  # a new counter: not count 3


def test_a_thread_keeps_a_bounded_number_of_leases(counters, monkeypatch):
    import guards.ratelimit_cache as module

    monkeypatch.setattr(module, "LEASES_KEPT", 3)
    with counting_in_blocks(5):
        for index in range(10):
            counters.add(f"many-{index}", 1, 60)
    assert len(counters.client._leases_held()) <= 3


def test_clearing_the_counters_voids_the_reserved_blocks(counters):
    with counting_in_blocks(5):
        counters.add("cleared", 1, 60)
        counters.clear()
        assert counters.add("cleared", 1, 60) is True
