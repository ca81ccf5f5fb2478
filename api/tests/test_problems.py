"""Every error under /api/ is RFC 9457 problem JSON with a stable code (contract 1.1)."""

import pytest
from django.test import override_settings

from api.tests.assertions import assert_problem

pytestmark = [pytest.mark.django_db, pytest.mark.urls("api.tests.urls")]

PROBE_LIMITS = {"probe": "1000/h"}


def test_unknown_api_route_is_problem_404(client):
    assert_problem(client.get("/api/public/v1/nothing-here"), 404, "not_found")


def test_malformed_json_is_invalid_body(client):
    with override_settings(RATELIMITS=PROBE_LIMITS):
        response = client.post("/api/probe", data="{not json", content_type="application/json")
    assert_problem(response, 400, "invalid_body")


def test_wrong_method_is_problem_405(client):
    with override_settings(RATELIMITS=PROBE_LIMITS):
        response = client.put("/api/probe", data="{}", content_type="application/json")
    assert_problem(response, 405, "method_not_allowed")


def test_oversized_body_is_problem_413(client):
    with override_settings(DATA_UPLOAD_MAX_MEMORY_SIZE=100, RATELIMITS=PROBE_LIMITS):
        response = client.post(
            "/api/probe", data='{"name": "' + "x" * 500 + '"}', content_type="application/json"
        )
    assert_problem(response, 413, "payload_too_large")


def test_unexpected_exception_is_problem_500(client, monkeypatch):
    from api.tests import urls

    def explode(self, request):
        raise RuntimeError("boom")

    monkeypatch.setattr(urls.ProbeView, "get", explode)
    client.raise_request_exception = False
    with override_settings(RATELIMITS=PROBE_LIMITS):
        response = client.get("/api/probe")
    assert_problem(response, 500, "server_error")


def test_non_api_404_stays_html(client):
    response = client.get("/no-such-page/")
    assert response.status_code == 404
    assert response["Content-Type"].startswith("text/html")


@pytest.mark.urls("config.urls")
def test_problem_type_url_is_a_page(client):
    response = client.get("/problems/quote-expired")
    assert response.status_code == 200
    assert b"Quote expired" in response.content
    assert client.get("/problems/no-such-problem").status_code == 404


@override_settings(DEBUG=True)
def test_with_debug_on_an_unknown_api_route_is_still_problem_json(client):
    """Issue 13: "HTML error pages from `/api/` in the demo (DEBUG on)"."""
    assert_problem(client.get("/api/public/v1/nothing-here"), 404, "not_found")


@override_settings(DEBUG=True, RATELIMITS=PROBE_LIMITS)
def test_with_debug_on_an_unexpected_exception_is_still_problem_json(client, monkeypatch):
    """Issue 13: "HTML error pages from `/api/` in the demo (DEBUG on)"."""
    from api.tests import urls

    def explode(self, request):
        raise RuntimeError("boom")

    monkeypatch.setattr(urls.ProbeView, "get", explode)
    client.raise_request_exception = False
    body = assert_problem(client.get("/api/probe"), 500, "server_error")
    assert "boom" not in body["detail"]


@override_settings(DEBUG=True, DATA_UPLOAD_MAX_MEMORY_SIZE=100, RATELIMITS=PROBE_LIMITS)
def test_with_debug_on_an_oversized_body_is_still_problem_413(client):
    response = client.post(
        "/api/probe", data='{"name": "' + "x" * 500 + '"}', content_type="application/json"
    )
    assert_problem(response, 413, "payload_too_large")


@override_settings(DEBUG=True)
def test_with_debug_on_pages_outside_the_api_keep_their_html(client):
    response = client.get("/no-such-page/")
    assert response.status_code == 404
    assert response["Content-Type"].startswith("text/html")
