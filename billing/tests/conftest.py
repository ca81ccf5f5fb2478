"""The localstripe server the Stripe tests charge against, shared by billing's test files."""

from __future__ import annotations

import pytest

from billing.tests.localstripe import PUBLISHABLE_KEY, SECRET_KEY, WEBHOOK_SECRET, LocalStripe


@pytest.fixture(scope="session")
def localstripe_server():
    server = LocalStripe().start()
    yield server
    server.stop()


@pytest.fixture
def stripe_on(localstripe_server, settings):
    localstripe_server.flush()
    settings.BILLING_COLLECTION_BACKEND = "billing.collection.StripeCollection"
    settings.STRIPE_SECRET_KEY = SECRET_KEY
    settings.STRIPE_PUBLISHABLE_KEY = PUBLISHABLE_KEY
    settings.STRIPE_WEBHOOK_SECRET = WEBHOOK_SECRET
    settings.STRIPE_API_BASE = localstripe_server.base
    return localstripe_server
