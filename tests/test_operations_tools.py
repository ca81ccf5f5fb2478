"""The fault tests (tests/test_operations_faults.py) skip on a laptop without their tools,
and fail under CI instead (issue 37): CI that skipped them passed without them."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests import operations_stack
from tests.operations_stack import TOOLS, Stack, faults_skip_reason


@pytest.fixture
def without_redis_server(monkeypatch):
    real = shutil.which
    monkeypatch.setattr(
        operations_stack.shutil, "which", lambda t: None if t == "redis-server" else real(t)
    )


@pytest.mark.parametrize("ci", ["true", "1"])
def test_under_ci_a_missing_tool_fails_the_fault_tests_not_skips_them(
    monkeypatch, without_redis_server, ci
):
    monkeypatch.setenv("CI", ci)
    assert faults_skip_reason() is None
    with pytest.raises(RuntimeError, match="redis-server"):
        Stack()


@pytest.mark.parametrize("ci", [None, "false", "0"])
def test_on_a_laptop_a_missing_tool_skips_them_naming_it(monkeypatch, without_redis_server, ci):
    if ci is None:
        monkeypatch.delenv("CI", raising=False)
    else:
        monkeypatch.setenv("CI", ci)
    assert "redis-server" in faults_skip_reason()


def test_every_tool_is_checked():
    assert set(TOOLS) == {"initdb", "postgres", "redis-server", "pg_isready", "psql", "redis-cli"}


def test_every_fixed_port_of_the_stack_is_outside_the_ephemeral_range():
    # A port in the range may be the local end of some client's connection at the moment a
    # server binds it: the fault stack's PostgreSQL then fails to start (seen in CI).
    low, high = (int(n) for n in Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split())
    ports = [
        operations_stack.PG_PORT,
        operations_stack.REDIS_PORT,
        operations_stack.WEB_PORT,
        operations_stack.RECEIVER_PORT,
        operations_stack.MCP_PORT,
        operations_stack.INGEST_PORT,
        operations_stack.PROXY_PORT,
    ]
    assert [port for port in ports if low <= port <= high] == []
