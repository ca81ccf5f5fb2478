"""The public API's content negotiation answers as DRF's does, for every Accept header."""

import pytest
from rest_framework.negotiation import DefaultContentNegotiation
from rest_framework.renderers import BrowsableAPIRenderer, JSONRenderer
from rest_framework.request import Request
from rest_framework.test import APIRequestFactory

from api.negotiation import AcceptHeaderNegotiation
from api.tests.assertions import assert_problem
from api.views import PublicAPIView

ACCEPTS = [
    None,
    "",
    "*/*",
    "application/json",
    "application/json; indent=4",
    "application/*",
    "text/html",
    "text/html, application/json;q=0.9, */*;q=0.8",
    "application/problem+json",
    " , ,application/json",
    "x" * 300 + ", application/json",
    "text/plain, " * 800 + "application/json",
    "image/png",
]


def negotiated(negotiation, accept: str | None, renderers, path="/api/probe", suffix=None):
    headers = {} if accept is None else {"HTTP_ACCEPT": accept}
    request = Request(APIRequestFactory().get(path, **headers))
    try:
        renderer, media_type = negotiation.select_renderer(request, renderers, suffix)
    except Exception as exc:  # noqa: BLE001 (the refusal is part of the answer)
        return type(exc), str(exc)
    return type(renderer), media_type


@pytest.mark.parametrize("accept", ACCEPTS)
@pytest.mark.parametrize(
    "renderers", [[JSONRenderer()], [JSONRenderer(), BrowsableAPIRenderer()]], ids=["json", "two"]
)
def test_the_renderer_and_media_type_are_drfs_own(accept, renderers):
    assert negotiated(AcceptHeaderNegotiation(), accept, renderers) == negotiated(
        DefaultContentNegotiation(), accept, renderers
    )


@pytest.mark.parametrize("accept", [None, "application/json", "text/html"])
@pytest.mark.parametrize(
    ("path", "suffix"),
    [
        ("/api/probe?format=json", None),
        ("/api/probe?format=api", None),
        ("/api/probe?format=xml", None),
        ("/api/probe?format=", None),
        ("/api/probe?page=2", None),
        ("/api/probe", "json"),
        ("/api/probe", "api"),
        ("/api/probe?format=json", "api"),
    ],
)
def test_a_format_in_the_query_or_suffix_is_read_as_drf_reads_it(accept, path, suffix):
    renderers = [JSONRenderer(), BrowsableAPIRenderer()]
    assert negotiated(AcceptHeaderNegotiation(), accept, renderers, path, suffix) == negotiated(
        DefaultContentNegotiation(), accept, renderers, path, suffix
    )


def test_the_public_api_negotiates_without_building_request_headers_or_get(monkeypatch):
    assert PublicAPIView.content_negotiation_class is AcceptHeaderNegotiation
    request = Request(APIRequestFactory().get("/api/probe", HTTP_ACCEPT="application/json"))
    for built in ("headers", "GET"):
        monkeypatch.setattr(
            type(request._request), built, property(lambda _r: pytest.fail("built"))
        )

    renderer, media_type = AcceptHeaderNegotiation().select_renderer(request, [JSONRenderer()])

    assert (type(renderer), media_type) == (JSONRenderer, "application/json")


@pytest.mark.django_db
@pytest.mark.urls("api.tests.urls")
def test_an_accept_header_the_api_cannot_answer_is_406_problem_json(client, settings):
    settings.RATELIMITS = {**settings.RATELIMITS, "probe": "1000/h"}
    assert client.get("/api/probe", HTTP_ACCEPT="application/json").status_code == 200
    assert_problem(client.get("/api/probe", HTTP_ACCEPT="text/html"), 406, "not_acceptable")
