"""A probe endpoint to exercise the shared API machinery in isolation."""

from django.urls import path
from rest_framework.response import Response

from api.callers import caller_from_request
from api.principals import request_account
from api.views import PublicAPIView
from guards.ratelimits import limit_enforce
from partners.models import Account


class ProbeView(PublicAPIView):
    """Limited under the scope "probe" as a use case limits itself (the shared base does
    not limit)."""

    def get(self, request):
        limit_enforce(caller_from_request(request), "probe")
        account = request_account(request)
        return Response({"account": account.slug if account else None})

    def post(self, request):
        limit_enforce(caller_from_request(request), "probe")
        # Creates one row per call so that idempotency can be counted.
        Account.objects.create(kind="agent", name=request.data["name"], slug=request.data["name"])
        return Response({"created": request.data["name"]}, status=201)


class EchoView(PublicAPIView):
    """Answers a POST with the status, content type, Location and body it names, so that
    what the idempotency machinery keeps of each kind of response can be observed."""

    def post(self, request):
        limit_enforce(caller_from_request(request), "probe")
        location = request.data.get("location")
        return Response(
            request.data.get("content"),
            status=request.data["status"],
            content_type=request.data.get("content_type"),
            headers={"Location": location} if location else None,
        )


urlpatterns = [
    path("api/probe", ProbeView.as_view()),
    path("api/probe/echo", EchoView.as_view()),
]

from api.problems import handler400, handler403, handler404, handler500  # noqa: E402, F401
