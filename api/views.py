"""The base of every public API view, and the schema and docs views."""

from __future__ import annotations

from django.conf import settings
from django.utils.module_loading import import_string
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema, extend_schema_view
from drf_spectacular.views import SpectacularAPIView
from rest_framework.permissions import AllowAny
from rest_framework.renderers import JSONRenderer
from rest_framework.views import APIView

from api.idempotency import IdempotentViewMixin
from api.negotiation import AcceptHeaderNegotiation
from api.problems import TITLES
from api.signed_once import SignedOnceMixin


class PublicAPIView(SignedOnceMixin, IdempotentViewMixin, APIView):
    """Anonymous or keyed (contract 1.2). Rate limits are the services' (``guards.ratelimits``
    called by the use case), never this base's.

    A signed (HMAC) request is good once: a repeat gets the first outcome (SignedOnceMixin).
    An Idempotency-Key is scoped to the authenticated caller (contract 1.3).
    """

    # The account authenticators (partners.authentication), named by dotted path as DRF
    # names its defaults: the shared edge imports no app.
    authentication_classes = [
        import_string(path) for path in settings.PUBLIC_API_AUTHENTICATION_CLASSES
    ]
    # Anonymous calls are welcome (limited per IP); the schema says so with an empty
    # security requirement beside the key schemes.
    permission_classes = [AllowAny]
    # DRF's answers, the Accept header read without building request.headers.
    content_negotiation_class = AcceptHeaderNegotiation

    def initial(self, request, *args, **kwargs):
        super().initial(request, *args, **kwargs)
        # Authentication is lazy in DRF; touch it so a bad key is 401 before anything else.
        request.auth  # noqa: B018
        self.idempotency_begin(request)


@extend_schema_view(
    get=extend_schema(
        operation_id="openapi_description",
        summary="This OpenAPI 3.1 description",
        responses={200: OpenApiTypes.OBJECT},
        tags=["service"],
    )
)
class OpenAPIJsonView(SpectacularAPIView):
    """GET /api/public/openapi.json and /api/public/v1/openapi.json."""

    renderer_classes = [JSONRenderer]
    authentication_classes: list = []
    permission_classes: list = []

    def get(self, request, *args, **kwargs):
        response = super().get(request, *args, **kwargs)
        response["Content-Type"] = "application/json"
        return response


@extend_schema_view(get=extend_schema(operation_id="openapi_description_v1"))
class OpenAPIJsonV1View(OpenAPIJsonView):
    pass


def problem_type_page(request, slug: str):
    """The human-readable page behind each problem ``type`` URL (RFC 9457 section 3.1.1)."""
    from django.http import Http404
    from django.shortcuts import render

    code = slug.replace("-", "_")
    if code not in TITLES:
        raise Http404("Unknown problem type")
    return render(request, "api/problem.html", {"code": code, "title": TITLES[code]})


def problem_index_page(request):
    from django.shortcuts import render

    return render(request, "api/problems.html", {"problems": sorted(TITLES.items())})
