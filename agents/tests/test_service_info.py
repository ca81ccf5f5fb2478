"""get_service_info is generated from the settings and data the API itself uses."""

import pytest

from agents.service_info import service_info_get
from pricing.vehicles import SEATS


@pytest.mark.django_db
def test_service_info_follows_settings_and_loaded_tariffs(settings, tariffs):
    settings.RATELIMITS = {**settings.RATELIMITS, "quote_v1": "45/h"}
    settings.PRICING_MEET_AND_GREET_GBP = "30.00"

    info = service_info_get()

    assert info["limits"]["quoteRequests"] == {"count": 45, "per": "hour"}
    assert info["fees"]["meetAndGreetGBP"] == 30.0
    assert info["fees"]["commissionPercent"] == 0
    assert {c["vehicleType"]: c["seats"] for c in info["vehicleClasses"]} == SEATS
    assert "Manchester City Council" in info["coverage"]["councils"]
    assert info["payment"]["takenByService"] is False


@pytest.mark.django_db
def test_service_info_without_tariffs_says_no_councils():
    assert service_info_get()["coverage"]["councils"] == []
