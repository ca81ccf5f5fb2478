"""Fixtures shared by every app's tests."""

from __future__ import annotations

import ipaddress
import os
import socket

import pytest
from celery._state import _set_task_join_will_block
from django.conf import settings
from django.core.cache import caches
from django.db import connection
from rest_framework.test import APIClient

from tests.mutation_database import database_copy_for_process, database_copy_remove

# --clock / TEST_CLOCK: the suite with the clock moved (tests/moved_clock.py).
pytest_plugins = ["tests.moved_clock"]


@pytest.fixture(scope="session")
def django_db_modify_db_settings(django_db_modify_db_settings_parallel_suffix):
    """Under `make mutate` (MUTATE_TESTS set), each mutmut child tests in its own copy of
    the migrated SQLite test database (tests/mutation_database.py)."""
    copy = None
    if os.environ.get("MUTATE_TESTS"):
        copy = database_copy_for_process(settings.DATABASES["default"])
    yield
    if copy:
        connection.close()
        database_copy_remove(copy)


@pytest.fixture(autouse=True)
def _fresh_state():
    # Rate-limit counters live in the cache and compiled tariffs in the process; tests
    # roll back their rows, so neither may leak from one test into the next.
    from pricing.catalogue import tariff_catalogue_clear

    _caches_clear()
    tariff_catalogue_clear()
    # Eager Celery toggles a process-global "joining would block" flag around each task;
    # threads of the concurrency tests can leave it set. Every test starts with it off.
    _set_task_join_will_block(False)
    yield
    _caches_clear()
    tariff_catalogue_clear()


def _caches_clear() -> None:
    # The rate-limit alias may share the default's Redis database, but clearing it also
    # drops the counts its client reserved in blocks (guards.ratelimit_cache).
    for alias in {"default", settings.RATELIMIT_USE_CACHE}:
        caches[alias].clear()
    # Live positions (drivers.positions): Redis under this worker's prefix, when used.
    from drivers.positions import positions_backend

    positions_backend().flush()


_LOCAL_HOSTS = {"localhost", "testserver"}


def _is_ip_literal(host) -> bool:
    # Resolving an address literal needs no network (the SSRF checks rely on it).
    try:
        ipaddress.ip_address(str(host).strip("[]"))
    except ValueError:
        return False
    return True


@pytest.fixture(autouse=True)
def _no_network(monkeypatch):
    """Tests never reach the internet: name resolution works for loopback only, so an
    unrecorded outbound call fails fast (record HTTP with `responses` instead)."""
    real_getaddrinfo = socket.getaddrinfo

    def local_only(host, *args, **kwargs):
        if host not in _LOCAL_HOSTS and not _is_ip_literal(host):
            raise socket.gaierror(f"network disabled in tests: {host}")
        return real_getaddrinfo(host, *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", local_only)


@pytest.fixture(autouse=True)
def _sqlite_settlement_log_flushable(request):
    """Transactional tests end with a flush: TRUNCATE on PostgreSQL, which fires no row
    triggers, but DELETE on SQLite, which the payment-record trigger refuses. Empty the
    settlement log with the trigger lifted before that flush."""
    marker = request.node.get_closest_marker("django_db")
    if marker is None or not marker.kwargs.get("transaction") or connection.vendor != "sqlite":
        yield
        return
    request.getfixturevalue("transactional_db")
    yield
    with connection.cursor() as cursor:
        cursor.execute("DROP TRIGGER IF EXISTS bookings_paymentrecord_no_delete")
        cursor.execute("DELETE FROM bookings_paymentrecord")
        cursor.execute(_SQLITE_NO_DELETE_TRIGGER)


_SQLITE_NO_DELETE_TRIGGER = """
CREATE TRIGGER bookings_paymentrecord_no_delete BEFORE DELETE ON bookings_paymentrecord
BEGIN SELECT RAISE(ABORT, 'payment records are immutable (DELETE on bookings_paymentrecord)');
END
"""


@pytest.fixture
def api_client() -> APIClient:
    return APIClient()


@pytest.fixture
def make_account(db):
    from partners.services import account_create

    def make(kind: str = "partner", name: str | None = None, **kwargs):
        name = name or f"Test {kind}"
        account, raw_key = account_create(kind=kind, name=name, **kwargs)
        account.raw_key = raw_key
        return account

    return make


def pytest_collection_modifyitems(config, items):
    # `make mutate FAMILY=...` runs a family's own tests only (MUTATE_TESTS: paths).
    only = tuple(os.environ.get("MUTATE_TESTS", "").split())
    if only:
        kept = [item for item in items if item.nodeid.startswith(only)]
        config.hook.pytest_deselected(items=[item for item in items if item not in kept])
        items[:] = kept
    skip_pg = pytest.mark.skip(reason="needs PostgreSQL (set DATABASE_URL=postgres://...)")
    for item in items:
        if "postgres" in item.keywords and connection.vendor != "postgresql":
            item.add_marker(skip_pg)
        if "slow" in item.keywords and not config.getoption("-m"):
            item.add_marker(pytest.mark.skip(reason="slow load test: run from the benchmarks"))


@pytest.fixture
def tariffs(db):
    """The council tariffs shipped with the project, as seed_demo loads them but without
    the estimated tables (pricing's ``estimated_tariffs`` fixture adds those)."""
    from pricing.loaders import tariffs_load

    tariffs_load(estimates=False)
