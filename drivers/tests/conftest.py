import pytest

from drivers.api import ingest


@pytest.fixture(autouse=True)
def _dispatch_urls(settings):
    # Job cards link to the dispatch pages, which config/urls.py includes under /dispatch/.
    settings.ROOT_URLCONF = "dispatch.tests.urls"


@pytest.fixture(autouse=True)
def _ingest_forgets_failing_addresses():
    # Each test is a fresh ingest process: addresses an earlier test's bad tokens came
    # from would otherwise send this test's token checks to the limit store first.
    ingest._failing_addresses.clear()
