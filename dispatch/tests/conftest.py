import pytest


@pytest.fixture(autouse=True)
def _dispatch_urls(settings):
    # Job cards link to the dispatch pages, which config/urls.py includes under /dispatch/.
    settings.ROOT_URLCONF = "dispatch.tests.urls"


@pytest.fixture
def dispatch_now(django_capture_on_commit_callbacks):
    """Run a dispatch step and everything it enqueues after commit (Celery is eager)."""

    def run(step, **kwargs):
        with django_capture_on_commit_callbacks(execute=True):
            return step(**kwargs)

    return run
