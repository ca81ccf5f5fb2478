import pytest


@pytest.fixture(autouse=True)
def _dispatch_urls(settings):
    # Job cards link to the dispatch pages, which config/urls.py includes under /dispatch/.
    settings.ROOT_URLCONF = "dispatch.tests.urls"
