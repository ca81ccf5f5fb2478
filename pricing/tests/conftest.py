import pytest
from django.core.cache import cache

from pricing.catalogue import tariff_catalogue_clear, tariff_compiled_get
from pricing.loaders import tariffs_load
from pricing.models import Tariff


@pytest.fixture(autouse=True)
def _fresh_pricing_state():
    # Rate-limit counters live in the cache; compiled tariffs in the process. Tests roll
    # back their rows, so neither may leak from one test into the next.
    cache.clear()
    tariff_catalogue_clear()
    yield
    tariff_catalogue_clear()


@pytest.fixture
def tariffs(db):
    """Every tariff from pricing/data/council_tariffs.json plus the network defaults (no
    estimated tables: ``estimated_tariffs`` adds them)."""
    tariffs_load(estimates=False)
    return {t.reference: t for t in Tariff.objects.all()}


@pytest.fixture
def estimated_tariffs(db):
    """As ``tariffs``, plus the estimated (uprated, calibrated) tables built from them."""
    tariffs_load()
    return {t.reference: t for t in Tariff.objects.all()}


@pytest.fixture
def compiled(tariffs):
    def get(reference: str):
        return tariff_compiled_get(Tariff.objects.get(reference=reference))

    return get
