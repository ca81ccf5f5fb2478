"""Rate limits per key and per IP answer 429 with Retry-After (contract 1.4)."""

import time

import pytest
import time_machine
from django.test import override_settings

from api.tests.assertions import assert_problem

pytestmark = [pytest.mark.django_db, pytest.mark.urls("api.tests.urls")]


@override_settings(RATELIMITS={"probe": "3/h"})
def test_fourth_anonymous_call_in_the_hour_is_429(client):
    for _ in range(3):
        assert client.get("/api/probe").status_code == 200
    response = client.get("/api/probe")
    body = assert_problem(response, 429, "rate_limited")
    retry_after = int(response["Retry-After"])
    assert 0 < retry_after <= 3600
    assert body["retryAfter"] == retry_after


@override_settings(RATELIMITS={"probe": "2/h"})
def test_limits_are_per_ip(client):
    for _ in range(2):
        client.get("/api/probe", REMOTE_ADDR="10.0.0.1")
    assert client.get("/api/probe", REMOTE_ADDR="10.0.0.1").status_code == 429
    assert client.get("/api/probe", REMOTE_ADDR="10.0.0.2").status_code == 200


@override_settings(RATELIMITS={"probe": "2/h"})
def test_keyed_calls_count_per_key_not_per_ip(client, make_account):
    first, second = make_account("partner", name="One"), make_account("partner", name="Two")
    for _ in range(2):
        assert client.get("/api/probe", HTTP_X_API_KEY=first.raw_key).status_code == 200
    assert client.get("/api/probe", HTTP_X_API_KEY=first.raw_key).status_code == 429
    assert client.get("/api/probe", HTTP_X_API_KEY=second.raw_key).status_code == 200


@override_settings(RATELIMITS={"probe": "2/h"})
def test_account_limit_overrides_default(client, make_account):
    generous = make_account("partner", name="Big", rate_limit="100/h")
    for _ in range(5):
        assert client.get("/api/probe", HTTP_X_API_KEY=generous.raw_key).status_code == 200


@pytest.mark.parametrize("rate", ["6000/m", "100/5s", "30/h", "20/d"])
def test_an_account_limit_in_django_ratelimits_format_is_accepted(make_account, rate):
    assert make_account("partner", name=f"Rate {rate}", rate_limit=rate).rate_limit == rate


@pytest.mark.parametrize("rate", ["6000 per minute", "6000/w", "/m", "0/m", "6000"])
def test_an_account_limit_that_could_not_be_read_is_refused(make_account, rate):
    from django.core.exceptions import ValidationError

    with pytest.raises(ValidationError) as refused:
        make_account("partner", name="Typo", rate_limit=rate)
    assert "rate_limit" in refused.value.message_dict


@override_settings(RATELIMITS={"probe": "1/h"}, RATELIMIT_ENABLE=False)
def test_limits_can_be_switched_off_for_benchmarks(client):
    for _ in range(3):
        assert client.get("/api/probe").status_code == 200


@pytest.mark.parametrize(("rate", "period"), [("3/h", 3600), ("3/10m", 600)])
def test_with_the_cache_unreachable_a_window_lasts_its_whole_period(monkeypatch, rate, period):
    from django_redis.exceptions import ConnectionInterrupted

    from core.callers import Caller
    from core.errors import LimitReached
    from guards import ratelimits

    def unreachable(*args, **kwargs):
        raise ConnectionInterrupted(connection=None)

    monkeypatch.setattr(ratelimits, "get_usage", unreachable)
    caller = Caller(ip="192.0.2.79")
    window_start = (int(time.time()) // period + 1) * period
    # Given the limit used up in the first second of a window
    with time_machine.travel(window_start, tick=False) as traveller:
        for _ in range(3):
            ratelimits.limit_enforce(caller, f"degraded_{period}", rate=rate)
        # Then a minute before the window ends it still holds, until the window's end
        traveller.move_to(window_start + period - 60)
        with pytest.raises(LimitReached) as refused:
            ratelimits.limit_enforce(caller, f"degraded_{period}", rate=rate)
        assert refused.value.retry_after == 60
        # and the next window starts afresh
        traveller.move_to(window_start + period)
        ratelimits.limit_enforce(caller, f"degraded_{period}", rate=rate)


def test_with_the_cache_unreachable_limits_count_per_process(monkeypatch, caplog):
    """Issue 13: "Redis unreachable: every rate-limited endpoint is 500". Contract 1.4:
    limits fall back to a per-process count, logged."""
    from django_redis.exceptions import ConnectionInterrupted

    from core.callers import Caller
    from core.errors import LimitReached
    from guards import ratelimits

    def unreachable(*args, **kwargs):
        raise ConnectionInterrupted(connection=None)

    monkeypatch.setattr(ratelimits, "get_usage", unreachable)
    monkeypatch.setattr(ratelimits, "_last_warning", [-1e9])
    caller = Caller(ip="192.0.2.77")
    for _ in range(3):
        ratelimits.limit_enforce(caller, "degraded_probe", rate="3/h")
    with pytest.raises(LimitReached) as refused:
        ratelimits.limit_enforce(caller, "degraded_probe", rate="3/h")
    assert 0 < refused.value.retry_after <= 3600
    # Another caller has its own count.
    ratelimits.limit_enforce(Caller(ip="192.0.2.78"), "degraded_probe", rate="3/h")
    assert "cache unreachable" in caplog.text


def test_an_agents_limits_count_per_passenger_whatever_the_client_calls_itself():
    """Finding (issue 24): "MCP rate limits are counted per client name, which the client
    chooses: a second registration gives the same passenger another 30 quotes." """
    from core.callers import Caller
    from core.errors import LimitReached
    from guards import ratelimits

    def agent(name: str, email: str = "jo@example.co.uk") -> Caller:
        return Caller(ip="192.0.2.5", source="agent", agent=name, passenger_email=email)

    ratelimits.limit_enforce(agent("Claude"), "agent_probe", rate="2/h")
    ratelimits.limit_enforce(agent("Claude (2nd registration)"), "agent_probe", rate="2/h")
    with pytest.raises(LimitReached):
        ratelimits.limit_enforce(agent("Another name"), "agent_probe", rate="2/h")
    # another passenger has an allowance of their own
    ratelimits.limit_enforce(agent("Claude", email="sam@example.co.uk"), "agent_probe", rate="2/h")


@pytest.mark.parametrize(
    ("rate", "parsed"),
    [("120/m", (120, 60)), ("3/h", (3, 3600)), ("100/5m", (100, 300)), ("10/s", (10, 1))],
)
def test_a_rate_reads_as_django_ratelimit_reads_it(rate, parsed):
    from guards.ratelimits import rate_parse

    assert rate_parse(rate) == parsed
