"""/metrics (contract 10.1): behind METRICS_TOKEN; requests by route and status, backlogs."""

from __future__ import annotations

import pytest
from prometheus_client.parser import text_string_to_metric_families


def _samples(text: str) -> dict:
    found = {}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            found[(sample.name, tuple(sorted(sample.labels.items())))] = sample.value
    return found


def test_without_a_token_set_metrics_is_404(client, settings):
    settings.METRICS_TOKEN = ""
    assert client.get("/metrics", HTTP_AUTHORIZATION="Bearer anything").status_code == 404


@pytest.mark.parametrize("header", [None, "Bearer wrong", "Basic c2VjcmV0", "secret-token"])
def test_without_the_right_bearer_token_metrics_is_401(client, settings, header):
    settings.METRICS_TOKEN = "secret-token"
    extra = {"HTTP_AUTHORIZATION": header} if header else {}

    response = client.get("/metrics", **extra)

    assert response.status_code == 401
    assert "taxi_" not in response.content.decode()


@pytest.mark.django_db
def test_metrics_count_requests_by_route_and_status_and_report_backlogs(client, settings):
    settings.METRICS_TOKEN = "secret-token"
    route = "/api/public/v1/booking/<str:ref>"

    def not_found_count(samples) -> float:
        # Counters live for the whole process: other tests' requests count too, so the
        # test reads what its own request added.
        return sum(
            value
            for (name, labels), value in samples.items()
            if name == "taxi_http_requests_total"
            and dict(labels)["route"] == route
            and dict(labels)["status"] == "404"
        )

    before = _samples(
        client.get("/metrics", HTTP_AUTHORIZATION="Bearer secret-token").content.decode()
    )
    client.get("/api/public/v1/booking/DTD-NOPE", {"email": "a@example.com"})

    response = client.get("/metrics", HTTP_AUTHORIZATION="Bearer secret-token")

    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/plain")
    samples = _samples(response.content.decode())
    assert not_found_count(samples) == not_found_count(before) + 1
    assert any(name == "taxi_http_request_duration_seconds_bucket" for name, _ in samples)
    assert samples[("taxi_offers_outstanding", ())] == 0
    assert samples[("taxi_webhook_backlog", ())] == 0
    assert samples[("taxi_dispatch_latency_seconds", (("quantile", "0.5"),))] == 0
    for queue in ("dispatch", "webhooks", "billing", "celery"):
        assert ("taxi_celery_queue_depth", (("queue", queue),)) in samples
    assert samples[("taxi_metrics_source_up", (("source", "database"),))] == 1
