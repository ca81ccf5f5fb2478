"""Content negotiation of the public API's views (``api.views.PublicAPIView``).

DRF's own negotiation, with the same answers, except for where it reads its two inputs:
DRF asks ``request.headers`` for Accept, which Django builds on first use as a dict of
every header of the request, all parsed, and ``request.query_params`` for ``?format=``,
which Django builds as a QueryDict even from an empty query string. Nothing else on a
quote's or an instant booking's path reads either, so both were built for one lookup
each. Here Accept is read from ``META`` (where ``request.headers`` takes it from) and
the query string is parsed only when there is one.
"""

from __future__ import annotations

from django.http import QueryDict
from rest_framework.negotiation import DefaultContentNegotiation

NO_QUERY = QueryDict()


class NegotiatedRequest:
    """What DRF's negotiation reads of a request: Accept and the query parameters."""

    def __init__(self, request) -> None:
        meta = request.META
        accept = meta.get("HTTP_ACCEPT")
        self.headers = {} if accept is None else {"accept": accept}
        self.query_params = request.query_params if meta.get("QUERY_STRING") else NO_QUERY


class AcceptHeaderNegotiation(DefaultContentNegotiation):
    def select_renderer(self, request, renderers, format_suffix=None):
        # DRF's rules, tokenising and bounds, on the values request.headers and
        # request.query_params would give.
        return super().select_renderer(NegotiatedRequest(request), renderers, format_suffix)
